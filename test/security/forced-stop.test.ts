// Promise: an enclosure cannot make itself unstoppable. An operator's forced stop removes it without
// copying its /workspace back (and says so); a plain tenant cannot force one; deleting a conversation
// ends its enclosure even when a copy back would fail, since the workspace goes with it.
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import type { AuditEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { outcome } from "../helpers/call-outcome.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const docker = new Docker();
let fx: TenantService<"acme" | "globex" | "ops">;
let acme: ControlPlaneClient;
let ops: ControlPlaneClient;

beforeAll(async () => {
  // A copy back of anything over 1 MiB written fails here.
  fx = await startTenantService({
    tenants: ["acme", "globex"],
    operators: ["ops"],
    transport: "unix",
    config: (c) => void (c.enclosure.copyBackMaxBytes = 1024 ** 2),
  });
  acme = fx.client("acme");
  ops = fx.client("ops");
}, 120_000);
afterAll(async () => {
  await fx?.close();
});

async function gone(containerId: string): Promise<boolean> {
  return docker
    .getContainer(containerId)
    .inspect()
    .then(
      () => false,
      (e: { statusCode?: number }) => e.statusCode === 404,
    );
}

/** An acme conversation whose copy-mode enclosure holds 4 MiB of random bytes. */
async function filled(): Promise<{ id: string; containerId: string }> {
  const id = (await acme.createConversation()).id;
  const c = await acme.startEnclosure(id, { workspaceMode: "copy", diskLimitBytes: 64 * 1024 ** 2 });
  const run = (await acme.openRun(id, { approvalPolicy: "never" })).id;
  expect((await acme.callTool(run, "exec", { command: "head -c 4M /dev/urandom > random.bin" })).isError).toBe(false);
  return { id, containerId: c.enclosure?.containerId ?? "" };
}

describe("stopping an enclosure", () => {
  it("a plain tenant cannot force a stop; an operator can, and nothing is copied back", async () => {
    const { id, containerId } = await filled();
    expect((await outcome(acme.stopEnclosure(id, { force: true }))).code).toBe("permission_denied");
    expect((await acme.getConversation(id)).enclosure?.state).toBe("running");
    const conv = await ops.stopEnclosure(`acme.${id}`, { force: true });
    expect(conv.placement).toBe("host");
    expect(conv.notCopiedBack).toHaveLength(1);
    await expectTranscript(conv.notCopiedBack[0] ?? "", "transcripts/forced-stop/forced-not-copied-back.txt");
    expect(await gone(containerId)).toBe(true);
    // Audited with who forced it, in the tenant's own history too.
    const events: AuditEvent[] = [];
    await acme.subscribeAudit({ conversationId: id, includeHistory: true, historyOnly: true }, (e) => events.push(e)).done;
    const forced = events.filter((e) => e.kind === "operator_action" && e.tool === "force_stop_enclosure");
    expect(forced).toHaveLength(1);
    expect(forced[0]?.detail).toMatch(/^by tenant ops \(token [0-9a-f]{8}\): /);
  }, 300_000);

  it("the tenant's own stop ends the enclosure even when its copy back fails", async () => {
    const { id, containerId } = await filled();
    const conv = await acme.stopEnclosure(id);
    expect(conv.placement).toBe("host");
    expect(conv.notCopiedBack).toHaveLength(1);
    await expectTranscript(conv.notCopiedBack[0] ?? "", "transcripts/forced-stop/failed-copy-back-not-copied-back.txt");
    expect(await gone(containerId)).toBe(true);
  }, 300_000);

  it("an operator's delete ends the conversation and its enclosure", async () => {
    const { id, containerId } = await filled();
    await ops.deleteConversation(`acme.${id}`);
    expect((await outcome(acme.getConversation(id))).code).toBe("not_found");
    expect(await gone(containerId)).toBe(true);
  }, 300_000);
});
