import { describe, expect, it } from "vitest";
import { ControlPlaneService, ToolCallEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { encodedSize, serializeOnce } from "./encoded-once.js";

const event = (text: string): ToolCallEvent => ({
  callId: 7,
  event: {
    $case: "result",
    value: { isError: false, parts: [{ part: { $case: "text", value: text }, repeatsStreamed: false }], errorCode: "", durationMs: 3, detailsJson: "" },
  },
});

describe("a streamed message encoded once", () => {
  it("sends the bytes its size was measured from, the generated serializer's bytes", () => {
    const size = encodedSize(ToolCallEvent);
    const serialize = serializeOnce(ToolCallEvent);
    const e = event("héllo 🎉");
    const n = size(e);
    const sent = serialize(e);
    expect(sent.length).toBe(n);
    expect(sent.equals(ControlPlaneService.callTools.responseSerialize(e))).toBe(true);
    expect(ToolCallEvent.decode(sent)).toEqual(ToolCallEvent.decode(ControlPlaneService.callTools.responseSerialize(e)));
  });

  it("encodes a message the budget never measured, and one sent twice each time", () => {
    const serialize = serializeOnce(ToolCallEvent);
    const e = event("unmeasured");
    expect(serialize(e).equals(ControlPlaneService.callTools.responseSerialize(e))).toBe(true);
    encodedSize(ToolCallEvent)(e);
    serialize(e);
    // What the first send took is not kept for a second: a changed message is encoded as it is now.
    const changed = event("changed after it was sent");
    Object.assign(e, changed);
    expect(ToolCallEvent.decode(serialize(e))).toEqual(ToolCallEvent.decode(ControlPlaneService.callTools.responseSerialize(changed)));
  });
});
