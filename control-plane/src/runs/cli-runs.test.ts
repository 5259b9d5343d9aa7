// The CLI's kept runs, on their own: one per (conversation, surface), a fresh one on new_run with the
// old one left open, each attach applying its own policy, bad input leaving no run behind, and the
// idle sweep sparing runs with a call in flight.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CliRuns } from "./cli-runs.js";
import { RunStore } from "./run-store.js";

const IDLE = 1_000;
let keeper: CliRuns | undefined;

function setup(): { runs: RunStore; cli: CliRuns; closed: string[] } {
  const runs = new RunStore();
  const closed: string[] = [];
  const cli = new CliRuns(
    runs,
    IDLE,
    (req) => runs.open(req),
    (id) => {
      closed.push(id);
      runs.close(id);
    },
  );
  keeper = cli;
  return { runs, cli, closed };
}

// The keeper's own sweep runs on a timer; held still so only the test's explicit times count.
beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  keeper?.stop();
  vi.useRealTimers();
});

describe("CliRuns", () => {
  it("keeps one run per conversation and surface", () => {
    const { cli } = setup();
    const a = cli.attach({ conversationId: "c1" }, 0);
    expect(a.cli).toBe(true);
    expect(cli.attach({ conversationId: "c1", surface: "default" }, 10).id).toBe(a.id);
    expect(cli.attach({ conversationId: "c1", surface: "plan" }, 20).id).not.toBe(a.id);
    expect(cli.attach({ conversationId: "c2" }, 30).id).not.toBe(a.id);
    expect(cli.isCurrent(a)).toBe(true);
  });

  it("applies each attach's policy and vibe mode, with write when none is named", () => {
    const { cli } = setup();
    const a = cli.attach({ conversationId: "c1", approvalPolicy: "never", vibeMode: true }, 0);
    expect([a.approvalPolicy, a.vibeMode]).toEqual(["never", true]);
    const b = cli.attach({ conversationId: "c1" }, 10);
    expect(b.id).toBe(a.id);
    expect([b.approvalPolicy, b.vibeMode]).toEqual(["write", false]);
  });

  it("opens a fresh run on new_run and leaves the replaced one open", () => {
    const { runs, cli } = setup();
    const old = cli.attach({ conversationId: "c1" }, 0);
    const fresh = cli.attach({ conversationId: "c1", newRun: true }, 10);
    expect(fresh.id).not.toBe(old.id);
    expect(runs.has(old.id)).toBe(true);
    expect(cli.isCurrent(old)).toBe(false);
    expect(cli.isCurrent(fresh)).toBe(true);
  });

  it("refuses a bad surface or policy with invalid_arguments and opens nothing", () => {
    const { runs, cli } = setup();
    expect(() => cli.attach({ conversationId: "c1", surface: "root" })).toThrow(expect.objectContaining({ code: "invalid_arguments" }));
    expect(() => cli.attach({ conversationId: "c1", approvalPolicy: "sometimes" })).toThrow(expect.objectContaining({ code: "invalid_arguments" }));
    expect(runs.list()).toEqual([]);
  });

  it("closes runs idle past their time, not those with a call in flight, and reopens on the next attach", () => {
    const { runs, cli, closed } = setup();
    const busy = cli.attach({ conversationId: "c1" }, 0);
    const quiet = cli.attach({ conversationId: "c2" }, 0);
    const api = runs.open({ conversationId: "c3" });
    busy.callsInFlight = 1;
    expect(cli.idleExpiresAtMs(busy)).toBe(0);
    expect(cli.idleExpiresAtMs(quiet)).toBe(IDLE);
    expect(cli.expire(IDLE - 1)).toEqual([]);
    expect(cli.expire(IDLE)).toEqual([quiet.id]);
    expect(closed).toEqual([quiet.id]);
    expect(runs.has(busy.id) && runs.has(api.id)).toBe(true);
    expect(cli.attach({ conversationId: "c2" }, IDLE + 1).id).not.toBe(quiet.id);
  });
});
