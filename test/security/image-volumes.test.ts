// Promise: an image's VOLUME gives an enclosure no unbounded disk. Each VOLUME path gets a tmpfs of
// the /tmp size (charged to the memory limit) instead of an anonymous volume of the engine's, so
// writing past it fails inside; and the egress audit's `mounts` item fails on any writable mount the
// engine holds that Enclave did not make (here: a container the test makes from the same image).
import { Readable } from "node:stream";
import Docker from "dockerode";
import { pack as tarPack } from "tar-stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { conversationKey } from "@enclave/control-plane/conversations/conversation-keys.js";
import { enclosureChecks } from "@enclave/control-plane/hardening/enclosure-audit.js";
import { readHostView } from "@enclave/control-plane/placement/host-view.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";

const docker = new Docker();
const IMAGE = "enclave-test-volume:scratch-v1";
let fx: Fixture;
const made: Docker.Container[] = [];

async function buildVolumeImage(): Promise<void> {
  const pack = tarPack();
  pack.entry({ name: "Dockerfile" }, "FROM enclave-runtime:latest\nUSER root\nRUN mkdir /scratch && chmod 1777 /scratch\nUSER enclave\nVOLUME /scratch\n");
  pack.finalize();
  const stream = await docker.buildImage(Readable.from(pack as unknown as AsyncIterable<Buffer>), { t: IMAGE, networkmode: "none", rm: true, forcerm: true });
  await new Promise<void>((resolve, reject) => docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())));
}

beforeAll(async () => {
  await buildVolumeImage();
  fx = await startFixture();
}, 300_000);
afterAll(async () => {
  for (const c of made) await c.remove({ force: true, v: true }).catch(() => undefined);
  await fx?.close();
  await docker
    .getImage(IMAGE)
    .remove()
    .catch(() => undefined);
});

describe("image VOLUMEs", () => {
  it("become a bounded tmpfs: no anonymous volume, writes past the bound fail, the audit passes", async () => {
    await fx.client.createConversation("vol");
    const c = await fx.client.startEnclosure("vol", { image: IMAGE, workspaceMode: "copy", diskLimitBytes: 64 * 1024 ** 2 });
    const info = await docker.getContainer(c.enclosure?.containerId ?? "").inspect();
    expect((info.Mounts ?? []).map((m) => m.Destination)).not.toContain("/scratch");
    expect((info.Mounts ?? []).filter((m) => m.RW).map((m) => m.Destination)).toEqual(["/workspace"]);
    const run = (await fx.client.openRun("vol", { approvalPolicy: "never" })).id;
    const out = resultText(
      await fx.client.callTool(run, "exec", {
        command: "dd if=/dev/zero of=/scratch/big bs=1M count=600 2>/dev/null; echo rc=$?; stat -c size=%s /scratch/big; stat -f -c fs=%T /scratch",
        timeout_seconds: 300,
      }),
    );
    expect(out).not.toContain("rc=0");
    expect(out).toContain("fs=tmpfs");
    const size = Number(/size=(\d+)/.exec(out)?.[1]);
    expect(size).toBeLessThanOrEqual(fx.cp.config.enclosure.tmpSizeBytes);
    const report = await fx.client.auditEnclosure("vol");
    expect(report.checks.find((k) => k.item === "mounts")?.ok, JSON.stringify(report.checks.find((k) => k.item === "mounts"))).toBe(true);
    await fx.client.stopEnclosure("vol");
  }, 300_000);

  it("the audit's mounts item fails on a writable mount Enclave did not make", async () => {
    await fx.client.createConversation("vol-audit");
    const c = await fx.client.startEnclosure("vol-audit", { image: IMAGE });
    const record = fx.cp.getConversation(conversationKey("local", "vol-audit")).enclosure;
    expect(record).toBeDefined();
    if (!record) return;
    // The same image with the engine's default for its VOLUME (an anonymous volume), and otherwise the
    // mounts the item looks for (/tmp and home on tmpfs), so the foreign volume alone can fail it.
    const plain = await docker.createContainer({
      Image: IMAGE,
      Entrypoint: ["sleep", "300"],
      NetworkDisabled: true,
      HostConfig: { NetworkMode: "none", Tmpfs: { "/tmp": "rw,size=1m", "/home/enclave": "rw,size=1m" } },
    });
    made.push(plain);
    await plain.start();
    const info = await plain.inspect();
    const checks = enclosureChecks({ info, host: await readHostView(info.Id, info.State.Pid) }, new Error("not asked"), { ...record, containerId: info.Id });
    const mounts = checks.find((k) => k.item === "mounts");
    expect(mounts?.ok).toBe(false);
    expect(mounts?.outside).toContain("/scratch");
    // The enclosure itself, made by Enclave from that image, passes the same item.
    const own = await fx.client.auditEnclosure("vol-audit");
    expect(own.checks.find((k) => k.item === "mounts")?.ok).toBe(true);
    expect(c.placement).toBe("enclosure");
    await fx.client.stopEnclosure("vol-audit");
  }, 300_000);
});
