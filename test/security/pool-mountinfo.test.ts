// A token tenant's enclosure claimed from the warm pool (bind mode) shows its workspace in the mount
// table, as any bind mount shows its source folder: that folder's name says nothing of the tenant or
// the conversation, and the tenant is told no workspace path.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient, resultText } from "@enclave/client/control-plane-client.js";
import type { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";
import { eventually } from "../helpers/wait.js";

let svc: TenantService<"acme">;
let cp: ControlPlane;
let acme: ControlPlaneClient;

beforeAll(async () => {
  svc = await startTenantService({ tenants: ["acme"], config: (c) => void (c.warmPool = { size: 1, profiles: [{}] }), prefix: "enclave-pool-mounts-" });
  cp = svc.cp;
  acme = svc.client("acme");
  await eventually(async () => (cp.warmPool?.counts()[0]?.ready ?? 0) === 1, "the pool to fill", 120_000);
}, 180_000);

afterAll(async () => {
  await svc?.close();
});

describe("a warm-pool enclosure's mount table", () => {
  it("names the workspace's host folder by a name that says nothing of the tenant or the conversation", async () => {
    await acme.createConversation("secret-project");
    const conv = await acme.startEnclosure("secret-project");
    expect(conv.enclosure?.origin).toBe("pool");
    const run = (await acme.openRun("secret-project", { approvalPolicy: "never" })).id;
    const r = await acme.callTool(run, "exec", { command: "cat /proc/self/mountinfo" });
    // The pool's slot, and the workspace mounted onto it at the claim.
    const lines = resultText(r)
      .split("\n")
      .filter((l) => l.split(" ")[4] === "/workspace");
    expect(lines).toHaveLength(2);
    expect(lines.join("\n")).not.toMatch(/acme|secret-project/);
    expect(conv.workspacePath).toBe("");
  }, 120_000);
});
