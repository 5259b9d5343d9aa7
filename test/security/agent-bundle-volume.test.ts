// The shared agent-bundle volume, attacked by a tenant through the real API with token tenants: one
// tenant's image ships files at the bundle's mount point (a json.py beside the Python kernel's
// runner) and starts first after a new bundle; another tenant's Python cell must not run them, and the
// volume must hold exactly the bundle. A volume changed on the engine afterwards refuses every start
// with `agent_bundle_mismatch`, recorded in the audit log.
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient, resultText } from "@enclave/client/control-plane-client.js";
import { IN_ENCLOSURE } from "@enclave/control-plane/model/enclosure.js";
import { agentBundleDir } from "@enclave/control-plane/repo-paths.js";
import { imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import type { AuditEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { byoImage } from "../helpers/byo-images.js";
import { outcome } from "../helpers/call-outcome.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";

const docker = new Docker();
let svc: TenantService<"acme" | "globex" | "ops">;
let volume = "";
const images = { planted: "", python: "" };
let tokens: Record<"acme" | "globex" | "ops", string>;

function client(token: string): ControlPlaneClient {
  return svc.connect(token);
}

/** Runs a shell command as root in a container of Enclave's base image with the volume mounted writable at /v. */
async function inVolume(command: string): Promise<void> {
  const c = await docker.createContainer({
    Image: imageTags().base,
    Cmd: ["/bin/sh", "-c", command],
    NetworkDisabled: true,
    HostConfig: { NetworkMode: "none", Mounts: [{ Type: "volume", Source: volume, Target: "/v" }] },
  });
  try {
    await c.start();
    expect((await c.wait()) as { StatusCode: number }).toMatchObject({ StatusCode: 0 });
  } finally {
    await c.remove({ force: true });
  }
}

beforeAll(async () => {
  // The operator allows both tenant images (a plain tenant may start only allowed images).
  images.planted = await byoImage("planted-bundle");
  images.python = await byoImage("python-debian");
  svc = await startTenantService({
    tenants: ["acme", "globex"],
    operators: ["ops"],
    config: (c, dir) => {
      // A bundle of its own (the built one and a nonce), so the run starts from a new, empty volume.
      const bundle = join(dir, "agent");
      cpSync(agentBundleDir, bundle, { recursive: true });
      writeFileSync(join(bundle, "test-nonce"), randomBytes(16).toString("hex"));
      c.agentBundleDir = bundle;
      c.enclosure.allowedImages = [images.planted, images.python];
    },
    prefix: "enclave-bundle-volume-",
  });
  tokens = svc.tokens;
}, 600_000);

afterAll(async () => {
  await svc?.close();
  if (volume)
    await docker
      .getVolume(volume)
      .remove()
      .catch(() => undefined);
});

describe("the shared agent-bundle volume", () => {
  it("a tenant's image with files at the bundle's mount point, started first, reaches neither the volume nor another tenant's kernel", async () => {
    const { planted, python } = images;
    const acme = client(tokens.acme);
    await acme.createConversation("first");
    await acme.startEnclosure("first", { image: planted });
    const globex = client(tokens.globex);
    const victim = await globex.createConversation("victim");
    await globex.startEnclosure("victim", { image: python });
    const info = await docker.getContainer((await globex.getConversation("victim")).enclosure?.containerId ?? "").inspect();
    const mount = info.Mounts.find((m) => m.Destination === IN_ENCLOSURE.agentDir);
    volume = mount?.Name ?? "";
    expect(volume).toMatch(/^enclave-agent-bundle-/);
    expect(mount?.RW).toBe(false);
    const run = (await globex.openRun("victim", { approvalPolicy: "never" })).id;
    const r = await globex.callTool(run, "eval", {
      language: "python",
      code: "import json\nprint(json.dumps([6 * 7]))",
      description: "a cell that imports json",
    });
    expect(r.isError, resultText(r)).toBe(false);
    expect(resultText(r)).toContain("[42]");
    expect(existsSync(join(victim.workspacePath, "PLANTED-BY-ANOTHER-TENANT"))).toBe(false);
    // Read as the engine holds it: nothing the planted image had is in the volume.
    const exec = await globex.callTool(run, "exec", {
      command: `ls ${IN_ENCLOSURE.agentDir}/PLANTED ${IN_ENCLOSURE.agentDir}/kernels/python/json.py 2>&1; echo done`,
    });
    expect(resultText(exec)).toContain("done");
    expect(resultText(exec)).not.toMatch(/^\/opt\/enclave\/agent\/(PLANTED|kernels)/m);
  }, 600_000);

  it("a volume whose content changed on the engine refuses every start with agent_bundle_mismatch, and the refusal is audited", async () => {
    expect(volume).not.toBe("");
    await svc.restart({
      deleteConversations: true,
      whileDown: () => inVolume("echo 'raise SystemExit(\"tampered\")' > /v/kernels/python/json.py"),
    });
    // A control plane started afterwards (its first start reads the volume back).
    const acme = client(tokens.acme);
    await acme.createConversation("after-tamper");
    const o = await outcome(acme.startEnclosure("after-tamper", { image: images.python }));
    expect(o.code).toBe("agent_bundle_mismatch");
    expect((await acme.getConversation("after-tamper")).enclosure).toBeUndefined();
    const events: AuditEvent[] = [];
    await client(tokens.ops).subscribeAudit({ includeHistory: true, historyOnly: true }, (e) => events.push(e)).done;
    const refused = events.filter((e) => e.kind === "agent_bundle_refused");
    expect(refused.map((e) => [e.tenant, e.outcome])).toEqual([["acme", "error:agent_bundle_mismatch"]]);
    // The same volume without the change starts again.
    await inVolume("rm /v/kernels/python/json.py");
    await svc.restart({ deleteConversations: true });
    const again = client(tokens.acme);
    await again.createConversation("restored");
    await expect(again.startEnclosure("restored", { image: images.python })).resolves.toMatchObject({ placement: "enclosure" });
  }, 600_000);
});
