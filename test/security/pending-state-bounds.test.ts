// Promise: a tenant that stages changes over and over without resolving them cannot grow the control
// plane's memory or its state database without bound. Each staged change is held in memory and
// written through to the state database (with ast_edit's new contents), so a run holds at most
// LIMITS.pendingActionsPerRunMax of them and LIMITS.pendingBytesPerRunMax bytes, and a tenant's runs
// LIMITS.pendingBytesPerTenantMax bytes between them (opening more runs is no way around it); past
// any, staging is refused with failed_precondition and nothing more is kept, and resolving makes room.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { LIMITS } from "@enclave/control-plane/limits.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";

let fx: Fixture;
let workspace: string;

beforeAll(async () => {
  fx = await startFixture();
  workspace = (await fx.client.createConversation("stager")).workspacePath;
});
afterAll(async () => fx?.close());

const stage = (runId: string) => fx.client.callTool(runId, "ast_edit", { pattern: "print($X)", rewrite: "log($X)", path: "", language: "python" });

describe("staged changes a run may hold", () => {
  it("refuses staging past the most changes one run may hold, and takes more once one is resolved", async () => {
    writeFileSync(join(workspace, "a.py"), "print(1)\n");
    const run = (await fx.client.openRun("stager", { approvalPolicy: "never", resources: ["workspace", "ast"] })).id;
    for (let i = 0; i < LIMITS.pendingActionsPerRunMax; i++) {
      const r = await stage(run);
      expect(r.isError, resultText(r)).toBe(false);
    }
    const over = await stage(run);
    expect(over.isError, "staging past the per-run count was taken").toBe(true);
    expect(over.errorCode).toBe("failed_precondition");
    expect(over.pending.pendingIds).toHaveLength(LIMITS.pendingActionsPerRunMax);
    const discarded = await fx.client.callTool(run, "resolve", { action: "discard", reason: "room" });
    expect(discarded.isError, resultText(discarded)).toBe(false);
    const again = await stage(run);
    expect(again.isError, resultText(again)).toBe(false);
    await fx.client.closeRun(run);
  }, 300_000);

  it("keeps a staged change's label short, however long the pattern and rewrite (it rides on every later result)", async () => {
    writeFileSync(join(workspace, "a.py"), "print(1)\n");
    const run = (await fx.client.openRun("stager", { approvalPolicy: "never", resources: ["workspace", "ast"] })).id;
    const rewrite = `log($X)  # ${"y".repeat(200_000)}`;
    const staged = await fx.client.callTool(run, "ast_edit", { pattern: "print($X)", rewrite, path: "", language: "python" });
    expect(staged.isError, resultText(staged)).toBe(false);
    const after = await fx.client.callTool(run, "read", { path: "a.py" });
    expect(after.pending.labels).toHaveLength(1);
    expect(after.pending.labels[0]?.length).toBeLessThan(1_000);
    await fx.client.closeRun(run);
  }, 120_000);

  it("refuses staging past the bytes one run's staged changes may keep", async () => {
    // One call in a 7 MB file (a long comment): each staging keeps its whole new content.
    const size = 7 * 1024 * 1024;
    writeFileSync(join(workspace, "a.py"), `${"#".repeat(size)}\nprint(1)\n`);
    const run = (await fx.client.openRun("stager", { approvalPolicy: "never", resources: ["workspace", "ast"] })).id;
    const perStage = Math.ceil(size / 3) * 4; // as the state database keeps it (base64)
    let accepted = 0;
    let refused: Awaited<ReturnType<typeof stage>> | undefined;
    for (let i = 0; i < Math.ceil(LIMITS.pendingBytesPerRunMax / perStage) + 2 && !refused; i++) {
      const r = await stage(run);
      if (r.isError) refused = r;
      else accepted++;
    }
    expect(refused, `${accepted} stagings of ${perStage} bytes were all taken`).toBeDefined();
    expect(refused?.errorCode).toBe("failed_precondition");
    expect(accepted * perStage).toBeLessThanOrEqual(LIMITS.pendingBytesPerRunMax);
    expect(accepted).toBeGreaterThanOrEqual(Math.floor(LIMITS.pendingBytesPerRunMax / (perStage + 4096)));
    expect(refused?.pending.pendingIds).toHaveLength(accepted);
    await fx.client.closeRun(run);
  }, 300_000);

  it("refuses staging past the bytes a tenant's runs may keep between them, and closing a run gives its room back", async () => {
    const size = 7 * 1024 * 1024;
    writeFileSync(join(workspace, "a.py"), `${"#".repeat(size)}\nprint(1)\n`);
    const perStage = Math.ceil(size / 3) * 4;
    const open = async () => (await fx.client.openRun("stager", { approvalPolicy: "never", resources: ["workspace", "ast"] })).id;
    // Each run stages until it is refused; fresh runs must not add up past the tenant's bound.
    const runs: string[] = [];
    let accepted = 0;
    for (let r = 0; r < Math.ceil(LIMITS.pendingBytesPerTenantMax / LIMITS.pendingBytesPerRunMax) + 2; r++) {
      const run = await open();
      runs.push(run);
      let taken = 0;
      for (;;) {
        const res = await stage(run);
        if (res.isError) {
          expect(res.errorCode).toBe("failed_precondition");
          break;
        }
        taken++;
      }
      accepted += taken;
      if (taken === 0) break;
    }
    expect(accepted * perStage, `${runs.length} runs kept ${accepted} stagings of ${perStage} bytes`).toBeLessThanOrEqual(LIMITS.pendingBytesPerTenantMax);
    const last = runs[runs.length - 1] as string;
    expect((await stage(last)).isError, "the tenant's bound did not hold").toBe(true);
    await fx.client.closeRun(runs[0] as string);
    const freed = await stage(last);
    expect(freed.isError, resultText(freed)).toBe(false);
    for (const run of runs.slice(1)) await fx.client.closeRun(run);
  }, 300_000);
});
