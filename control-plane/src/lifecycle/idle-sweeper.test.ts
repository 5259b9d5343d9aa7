// The sweeper's decisions over a table of conversations (the control plane's side is tested with real
// agents in test/integration/lifecycle-*.test.ts): what keeps a conversation awake and what puts it
// to sleep, with the clock passed in rather than waited out.
import { describe, expect, it } from "vitest";
import type { SleepReason } from "../model/conversation.js";
import { type AwakeConversation, IdleSweeper, type SweeperPort } from "./idle-sweeper.js";

function table(rows: AwakeConversation[], cards: Record<string, number> = {}, busy: Record<string, string> = {}) {
  const slept: Array<[string, SleepReason]> = [];
  const port: SweeperPort = {
    awake: () => rows.filter((r) => !slept.some(([id]) => id === r.id)),
    openCards: (id) => cards[id] ?? 0,
    agentBusy: (id) => Promise.resolve(busy[id]),
    sleep: (id, reason) => {
      slept.push([id, reason]);
      return Promise.resolve();
    },
    failed: () => undefined,
  };
  return { port, slept };
}

const HOUR = 3600_000;
const policy = { idleTimeoutSeconds: 60, maxLifetimeSeconds: 3600 };

describe("the idle sweeper", () => {
  it("puts to sleep what is idle past its timeout, and nothing earlier", async () => {
    const now = Date.now();
    const { port, slept } = table([{ id: "a", startedAtMs: now, policy }]);
    const sweeper = new IdleSweeper(port, 1000, 4);
    await sweeper.sweep(now + 59_000);
    expect(slept).toEqual([]);
    await sweeper.sweep(now + 61_000);
    expect(slept).toEqual([["a", "idle"]]);
  });

  it("puts a paused tenant's running placement to sleep at once, and only once no call runs", async () => {
    const now = Date.now();
    const { port, slept } = table([
      { id: "paused", startedAtMs: now, policy, tenantPaused: true },
      { id: "calling", startedAtMs: now, policy, tenantPaused: true },
      { id: "other", startedAtMs: now, policy },
    ]);
    const sweeper = new IdleSweeper(port, 1000, 4);
    const end = sweeper.enter("calling");
    await sweeper.sweep(now);
    expect(slept).toEqual([["paused", "tenant_paused"]]);
    end();
    await sweeper.sweep(now);
    expect(slept).toEqual([
      ["paused", "tenant_paused"],
      ["calling", "tenant_paused"],
    ]);
  });

  it("keeps awake a conversation with an open card, a call in flight, a running cell or a stopped debug session", async () => {
    const now = Date.now();
    const rows = ["card", "call", "cell"].map((id) => ({ id, startedAtMs: now, policy }));
    const { port, slept } = table(rows, { card: 1 }, { cell: "a python cell is running" });
    const sweeper = new IdleSweeper(port, 1000, 4);
    const leave = sweeper.enter("call");
    await sweeper.sweep(now + 10 * 60_000);
    expect(slept).toEqual([]);
    leave();
    // The call's end starts the idle clock again: idle from there, it sleeps.
    await sweeper.sweep(Date.now() + 61_000);
    expect(slept).toEqual([["call", "idle"]]);
  });

  it("puts to sleep at the maximum lifetime even when an agent says it is busy, once no call is in flight", async () => {
    const now = Date.now();
    const { port, slept } = table(
      [{ id: "old", startedAtMs: now - 2 * HOUR, policy: { idleTimeoutSeconds: 0, maxLifetimeSeconds: 3600 } }],
      {},
      { old: "busy" },
    );
    const sweeper = new IdleSweeper(port, 1000, 4);
    const leave = sweeper.enter("old");
    await sweeper.sweep(now);
    expect(slept).toEqual([]);
    leave();
    await sweeper.sweep(now);
    expect(slept).toEqual([["old", "max_lifetime"]]);
  });

  it("never sleeps what has an idle timeout of 0 and no lifetime", async () => {
    const now = Date.now();
    const { port, slept } = table([{ id: "forever", startedAtMs: now - 100 * HOUR, policy: { idleTimeoutSeconds: 0, maxLifetimeSeconds: 0 } }]);
    await new IdleSweeper(port, 1000, 4).sweep(now + 100 * HOUR);
    expect(slept).toEqual([]);
  });

  it("sleeps thousands in one pass, a bounded few at a time", async () => {
    const now = Date.now();
    const rows = Array.from({ length: 5000 }, (_, i) => ({ id: `c${i}`, startedAtMs: now, policy }));
    let inFlight = 0;
    let most = 0;
    const { port } = table(rows);
    const sweeper = new IdleSweeper(
      {
        ...port,
        sleep: async () => {
          most = Math.max(most, ++inFlight);
          await new Promise((r) => setImmediate(r));
          inFlight--;
        },
      },
      1000,
      8,
    );
    await sweeper.sweep(now + HOUR);
    expect(most).toBe(8);
  });
});
