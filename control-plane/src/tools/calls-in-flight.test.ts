import { describe, expect, it } from "vitest";
import { EnclaveError } from "../errors.js";
import { CallFeed } from "./call-feed.js";
import { CallsInFlight, parseCallId } from "./calls-in-flight.js";

const codeOf = (f: () => unknown): string => {
  try {
    f();
    return "ok";
  } catch (err) {
    return err instanceof EnclaveError ? err.code : "thrown";
  }
};

describe("calls in flight", () => {
  it("aborts a tracked call's signal on cancel, saying who, and forgets it when done", () => {
    const feed = new CallFeed();
    const calls = new CallsInFlight();
    const call = feed.started({ conversationId: "c", runId: "r", tool: "exec", origin: "model" });
    const caller = new AbortController();
    const tracked = calls.track(call, caller.signal);
    expect(calls.list().map((c) => c.callId)).toEqual([call.callId]);
    expect(tracked.cancelledBy()).toBeUndefined();
    calls.cancel(call.callId, { who: "tenant ops (token 12345678)" });
    expect(tracked.signal.aborted).toBe(true);
    expect(tracked.cancelledBy()).toEqual({ who: "tenant ops (token 12345678)" });
    expect(caller.signal.aborted).toBe(false);
    tracked.done();
    expect(calls.list()).toEqual([]);
    expect(codeOf(() => calls.cancel(call.callId, { who: "x" }))).toBe("not_found");
  });

  it("aborts with the caller's own cancel, which names no operator", () => {
    const calls = new CallsInFlight();
    const call = new CallFeed().started({ conversationId: "c", runId: "r", tool: "read", origin: "bridge" });
    const caller = new AbortController();
    const tracked = calls.track(call, caller.signal);
    caller.abort();
    expect(tracked.signal.aborted).toBe(true);
    expect(tracked.cancelledBy()).toBeUndefined();
  });

  it("tells whenCancelled once, when an operator's cancel is what stops the call, not after the caller's own abort", () => {
    const calls = new CallsInFlight();
    const feed = new CallFeed();
    const told: string[] = [];
    const first = feed.started({ conversationId: "c", runId: "r", tool: "exec", origin: "model" });
    const a = calls.track(first, new AbortController().signal);
    a.whenCancelled(() => told.push(`first by ${a.cancelledBy()?.who}`));
    calls.cancel(first.callId, { who: "ops" });
    calls.cancel(first.callId, { who: "ops again" });
    const second = feed.started({ conversationId: "c", runId: "r", tool: "exec", origin: "model" });
    const caller = new AbortController();
    const b = calls.track(second, caller.signal);
    b.whenCancelled(() => told.push("second"));
    caller.abort();
    calls.cancel(second.callId, { who: "ops" });
    expect(told).toEqual(["first by ops"]);
  });

  it("takes a decimal id only", () => {
    expect(parseCallId("42")).toBe(42);
    for (const bad of ["", "0", "-1", "1.5", "0x10", " 1", "1e3", "9".repeat(16), "a"]) expect(codeOf(() => parseCallId(bad))).toBe("invalid_arguments");
  });
});
