// The warm pool on the real Docker engine: it fills, a start claims a pre-started enclosure of the
// same profile (bind mode: the workspace mounted into the running container; copy mode: the archive
// put in), the agent is told its conversation, the pool refills, a claimed enclosure is never handed
// to anyone else, the audit and the conversation say where it came from, and closing the control
// plane drains the pool. A second control plane on the same data folder removes what a previous run
// left of its pool.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@enclave/control-plane/config.js";
import { resultText } from "@enclave/client/control-plane-client.js";
import { ownerId } from "@enclave/control-plane/placement/docker-driver.js";
import { LABELS, POOL_LABEL } from "@enclave/control-plane/model/labels.js";
import { warmPoolSlotRoot } from "@enclave/control-plane/placement/warm-pool.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { type Mask, expectTranscript } from "@enclave/test-kit/transcript.js";
import { eventually } from "../helpers/wait.js";

/** Containers, pool profiles, the image's tag and the enclosure's uid differ per run. */
const CONTAINER_IDS: Mask[] = [
  [/\b[0-9a-f]{12,64}\b/g, "<id>"],
  [/\buser \d+:\d+/g, "user <uid>:<uid>"],
];

const docker = new Docker();

async function poolContainers(owner: string): Promise<Docker.ContainerInfo[]> {
  return docker.listContainers({ all: true, filters: { label: [`${LABELS.owner}=${owner}`, POOL_LABEL] } });
}

function mounted(path: string): boolean {
  return readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .some((l) => l.split(" ")[4] === path);
}

describe("warm pool", () => {
  let fx: Fixture;
  let owner: string;
  const ready = (mode: "bind" | "copy"): number => {
    const counts = fx.cp.warmPool?.counts() ?? [];
    // Profiles are listed in configuration order: bind first, copy second.
    return counts[mode === "bind" ? 0 : 1]?.ready ?? 0;
  };

  beforeAll(async () => {
    fx = await startFixture((config) => {
      config.warmPool = { size: 1, profiles: [{}, { workspaceMode: "copy", diskLimitBytes: 64 * 1024 ** 2 }] };
    });
    owner = ownerId(fx.dataDir);
    await eventually(async () => ready("bind") === 1 && ready("copy") === 1, "the pool to fill both profiles", 120_000);
  });
  afterAll(async () => fx?.close());

  it("claims a pre-started bind-mode enclosure: the conversation's workspace, and nothing else", async () => {
    const pooled = new Set((await poolContainers(owner)).map((c) => c.Id));
    const ws = (await fx.client.createConversation("pool-a")).workspacePath;
    writeFileSync(join(ws, "a.txt"), "for a\n");
    const conv = await fx.client.startEnclosure("pool-a");
    expect(conv.enclosure?.origin).toBe("pool");
    const id = conv.enclosure?.containerId ?? "";
    expect(pooled.has(id)).toBe(true);
    const run = (await fx.client.openRun("pool-a", { approvalPolicy: "never" })).id;
    expect(resultText(await fx.client.callTool(run, "read", { path: "a.txt" }))).toBe("for a\n");
    const ls = await fx.client.callTool(run, "exec", { command: "ls -A /workspace; pwd" });
    expect(resultText(ls)).toMatch(/^a\.txt\n\/workspace/);
    const w = await fx.client.callTool(run, "write", { path: "inside.txt", content: "written inside\n" });
    expect(w.isError, resultText(w)).toBe(false);
    expect(readFileSync(join(ws, "inside.txt"), "utf8")).toBe("written inside\n");
    // Its own uid, held from its start as a spare's and now the conversation's (recorded in the data folder);
    // the pool's next enclosure holds another.
    const uid = Number((await docker.getContainer(id).inspect()).Config.User?.split(":")[0]);
    expect(uid).toBeGreaterThanOrEqual(loadConfig().enclosure.uids.base);
    expect(readFileSync(join(fx.dataDir, "enclosure-uids", String(uid)), "utf8")).toMatch(/(^|\.)pool-a$/);
    const next = (await poolContainers(owner)).filter((c) => c.Id !== id);
    for (const c of next) expect((await docker.getContainer(c.Id).inspect()).Config.User).not.toBe(`${uid}:${uid}`);
    // The agent bundle is shared by every enclosure, read-only: none can change what another runs.
    const touch = await fx.client.callTool(run, "exec", { command: "touch /opt/enclave/agent/planted 2>&1; grep ' /opt/enclave/agent ' /proc/self/mountinfo" });
    expect(resultText(touch)).toMatch(/Read-only file system/);
    expect(resultText(touch)).toMatch(/ \/opt\/enclave\/agent ro,/);
    const agent = (await fx.cp.placements.endpoint("pool-a")).client;
    expect((await agent.health()).conversationId).toBe("pool-a");
    // Told once: the agent refuses to serve another conversation.
    await expect(agent.assign("someone-else")).rejects.toMatchObject({ code: "failed_precondition" });
    const started = fx.cp.audit.history("pool-a").find((e) => e.kind === "enclosure_started");
    // The audit log and the audit's origin item say where it came from (origin above is the field).
    await expectTranscript(started?.detail ?? "", "transcripts/warm-pool/pool-started-detail.txt", CONTAINER_IDS);
    const audit = await fx.client.auditEnclosure("pool-a");
    const origin = audit.checks.find((c) => c.item === "origin");
    expect(origin?.ok, JSON.stringify(origin)).toBe(true);
    await expectTranscript(origin?.outside ?? "", "transcripts/warm-pool/pool-origin-outside.txt", CONTAINER_IDS);
  });

  it("refills, and never hands a claimed enclosure to another conversation", async () => {
    const first = (await fx.client.getConversation("pool-a")).enclosure?.containerId ?? "";
    await eventually(async () => ready("bind") === 1, "the pool to refill", 120_000);
    const slot = (fx.cp.listConversations().find((c) => c.id === "pool-a")?.enclosure?.pool?.slot ?? "") as string;
    expect(slot).not.toBe("");
    await fx.client.stopEnclosure("pool-a");
    // The claimed container is gone for good and its slot released; the host's workspace stays.
    await expect(docker.getContainer(first).inspect()).rejects.toMatchObject({ statusCode: 404 });
    expect(mounted(slot)).toBe(false);
    expect(existsSync(slot)).toBe(false);
    expect(readFileSync(join(fx.cp.listConversations().find((c) => c.id === "pool-a")?.workspacePath ?? "", "a.txt"), "utf8")).toBe("for a\n");

    const ws = (await fx.client.createConversation("pool-b")).workspacePath;
    writeFileSync(join(ws, "b.txt"), "for b\n");
    const conv = await fx.client.startEnclosure("pool-b");
    expect(conv.enclosure?.origin).toBe("pool");
    expect(conv.enclosure?.containerId).not.toBe(first);
    const run = (await fx.client.openRun("pool-b", { approvalPolicy: "never" })).id;
    const ls = await fx.client.callTool(run, "exec", { command: "ls -A /workspace; ls -A /tmp /home/enclave | grep -c . || true" });
    expect(resultText(ls)).toMatch(/^b\.txt\n/);
    expect(resultText(ls)).not.toMatch(/a\.txt|inside\.txt/);
    expect((await (await fx.cp.placements.endpoint("pool-b")).client.health()).conversationId).toBe("pool-b");
    await fx.client.stopEnclosure("pool-b");
  });

  it("claims a copy-mode enclosure: the archive goes in, and comes back at stop", async () => {
    const ws = (await fx.client.createConversation("pool-c")).workspacePath;
    writeFileSync(join(ws, "c.txt"), "for c\n");
    const conv = await fx.client.startEnclosure("pool-c", { workspaceMode: "copy", diskLimitBytes: 64 * 1024 ** 2 });
    expect(conv.enclosure?.origin).toBe("pool");
    expect(conv.enclosure?.workspaceMode).toBe("copy");
    const run = (await fx.client.openRun("pool-c", { approvalPolicy: "never" })).id;
    expect(resultText(await fx.client.callTool(run, "exec", { command: "cat /workspace/c.txt; echo made > /workspace/made.txt" }))).toMatch(/for c/);
    await fx.client.stopEnclosure("pool-c");
    expect(readFileSync(join(ws, "made.txt"), "utf8")).toBe("made\n");
  });

  it("starts cold when no pooled profile fits", async () => {
    await fx.client.createConversation("pool-d");
    const conv = await fx.client.startEnclosure("pool-d", { memoryBytes: 300 * 1024 ** 2 });
    expect(conv.enclosure?.origin).toBe("cold");
    expect((await (await fx.cp.placements.endpoint("pool-d")).client.health()).conversationId).toBe("pool-d");
    const started = fx.cp.audit.history("pool-d").find((e) => e.kind === "enclosure_started");
    await expectTranscript(started?.detail ?? "", "transcripts/warm-pool/cold-started-detail.txt", CONTAINER_IDS);
    await fx.client.stopEnclosure("pool-d");
  });

  it("is drained when the control plane closes", async () => {
    await eventually(async () => ready("bind") === 1 && ready("copy") === 1, "the pool to refill", 120_000);
    expect((await poolContainers(owner)).length).toBe(2);
    await fx.cp.warmPool?.drain();
    expect(await poolContainers(owner)).toEqual([]);
  });
});

describe("warm pool leftovers", () => {
  it("a control plane removes what a previous run of its data folder left in the pool", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "enclave-pool-left-"));
    const owner = ownerId(dataDir);
    const name = `enclave-pool-leftover-${Date.now().toString(36)}`;
    // A pool container a crashed run left (never started: it needs no image work), and its slot, mounted.
    const image = execFileSync("docker", ["images", "--format", "{{.Repository}}:{{.Tag}}", "enclave-base"], { encoding: "utf8" }).split("\n")[0] ?? "";
    const c = await docker.createContainer({
      name,
      Image: image,
      Entrypoint: ["/bin/true"],
      Labels: { [LABELS.managed]: "true", [LABELS.owner]: owner, [POOL_LABEL]: "leftover" },
    });
    const slot = join(warmPoolSlotRoot(dataDir), name);
    mkdirSync(slot, { recursive: true });
    execFileSync("mount", ["--bind", slot, slot]);
    let fx: Fixture | undefined;
    try {
      fx = await startFixture((config) => {
        config.dataDir = dataDir;
      });
      await expect(c.inspect()).rejects.toMatchObject({ statusCode: 404 });
      expect(mounted(slot)).toBe(false);
      expect(existsSync(slot)).toBe(false);
      // Size 0 (the default): nothing was started in its place.
      expect(await poolContainers(owner)).toEqual([]);
    } finally {
      await fx?.close();
      await c.remove({ force: true }).catch(() => undefined);
      if (mounted(slot)) execFileSync("umount", ["-l", slot]);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
