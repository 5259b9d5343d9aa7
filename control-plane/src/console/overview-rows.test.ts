// The console overview's table holds the newest LIMITS.consoleOverviewRows conversations and says how
// many there are in all, so a refresh of a control plane with thousands costs a bounded table.
import { describe, expect, it } from "vitest";
import type { ConversationView } from "../control-plane.js";
import { LIMITS } from "../limits.js";
import { overviewTable } from "./views/conversation-views.js";

const conv = (i: number): ConversationView => ({
  id: `c${i}`,
  workspacePath: `/w/c${i}`,
  ownsWorkspace: true,
  createdAtMs: i,
  tenant: "local",
  placement: "host",
  openRuns: [],
  lifecycleState: "active",
  policy: { idleTimeoutSeconds: 0, maxLifetimeSeconds: 0 },
});

describe("the overview table", () => {
  it("says which part of how many it shows when it shows fewer than there are", () => {
    const rows = [3, 4].map((i) => ({ conv: conv(i), hostAgentPid: undefined, openCards: 0, runningWorkers: 0 }));
    const cut = overviewTable({ rows, total: 5 }).value;
    expect(cut.match(/data-conversation=/g)).toHaveLength(2);
    expect(cut).toMatch(/data-shown="2" data-total="5"/);
    expect(overviewTable({ rows, total: 2 }).value).not.toMatch(/data-total/);
  });

  it("has a bound in the limits table", () => {
    expect(LIMITS.consoleOverviewRows).toBeGreaterThan(0);
    expect(LIMITS.consoleOverviewRows).toBeLessThanOrEqual(LIMITS.listConversationsMaxPage);
  });
});
