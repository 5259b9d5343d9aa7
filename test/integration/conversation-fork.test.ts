// Forking a conversation (ForkConversation, `enclave conversations fork`): a real control plane, real
// host agents and real enclosures on the real Docker engine. The source's workspace is hostile: a link
// leading out of it, a FIFO, a hard-linked pair; the fork must follow none of them out, make no special
// file, and share no inode or writable path with its source afterwards.
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import {
  existsSync,
  linkSync,
  mkdtempSync,
  rmSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { outcome } from "../helpers/call-outcome.js";
import { TEST_RUNTIMES } from "../helpers/runtimes.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";

const docker = new Docker();
const SWAPPER = join(dirname(fileURLToPath(import.meta.url)), "..", "helpers", "path-swapper.mjs");

/** Every file's content below `dir`, links not followed. */
function contents(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? contents(join(dir, e.name)) : e.isFile() ? [readFileSync(join(dir, e.name), "utf8")] : [],
  );
}

describe("fork on host placement", () => {
  let fx: Fixture;
  let src: string;

  beforeAll(async () => {
    fx = await startFixture();
    src = (await fx.client.createConversation("fork-src")).workspacePath;
    writeFileSync(join(src, "a.txt"), "alpha\n");
    mkdirSync(join(src, "sub"));
    writeFileSync(join(src, "sub", "b.txt"), "beta\n");
    symlinkSync("/etc/passwd", join(src, "link-out"));
    symlinkSync("../a.txt", join(src, "sub", "link-in"));
    execFileSync("mkfifo", [join(src, "pipe")]);
    writeFileSync(join(src, "h1"), "shared inode\n");
    linkSync(join(src, "h1"), join(src, "h2"));
  });
  afterAll(async () => fx?.close());

  it("copies the files, not the link leading out nor the FIFO (both reported), and makes hard links separate files", async () => {
    const fork = await fx.client.forkConversation("fork-src", "fork-dst");
    expect(fork).toMatchObject({ id: "fork-dst", forkedFrom: "fork-src", placement: "host", tenant: "local" });
    const dst = fork.workspacePath;
    expect(dst).not.toBe(src);
    expect(readFileSync(join(dst, "a.txt"), "utf8")).toBe("alpha\n");
    expect(readFileSync(join(dst, "sub", "b.txt"), "utf8")).toBe("beta\n");
    // A link that stays inside is copied as a link; the one leading out is neither copied nor followed.
    expect(readlinkSync(join(dst, "sub", "link-in"))).toBe("../a.txt");
    expect(existsSync(join(dst, "link-out"))).toBe(false);
    expect(() => lstatSync(join(dst, "link-out"))).toThrow();
    expect(existsSync(join(dst, "pipe"))).toBe(false);
    expect(readdirSync(dst).sort()).toEqual(["a.txt", "h1", "h2", "sub"]);
    expect(fork.notCopiedBack.find((l) => l.startsWith("link-out:"))).toMatch(/\/etc\/passwd.*leaves the workspace/);
    expect(fork.notCopiedBack.find((l) => l.startsWith("pipe:"))).toMatch(/FIFO/);
    expect(fork.notCopiedBack.some((l) => l.startsWith("(memory)"))).toBe(true);
    // Same content, no inode shared: not with the source, not between the two names.
    const [s1, d1, d2] = [statSync(join(src, "h1")), statSync(join(dst, "h1")), statSync(join(dst, "h2"))];
    expect(readFileSync(join(dst, "h2"), "utf8")).toBe("shared inode\n");
    expect(d1.ino).not.toBe(s1.ino);
    expect(d1.ino).not.toBe(d2.ino);
    expect(d1.nlink).toBe(1);
    // The source is as it was.
    expect(statSync(join(src, "h2")).ino).toBe(s1.ino);
  });

  it("the two are independent afterwards: writes in one are not seen in the other", async () => {
    const run = (await fx.client.openRun("fork-dst", { approvalPolicy: "never" })).id;
    const w = await fx.client.callTool(run, "exec", { command: "echo changed > a.txt; echo new > only-in-fork.txt; echo x >> h1" });
    expect(w.isError, resultText(w)).toBe(false);
    expect(readFileSync(join(src, "a.txt"), "utf8")).toBe("alpha\n");
    expect(existsSync(join(src, "only-in-fork.txt"))).toBe(false);
    expect(readFileSync(join(src, "h1"), "utf8")).toBe("shared inode\n");
    writeFileSync(join(src, "sub", "b.txt"), "source changed\n");
    const dst = (await fx.client.getConversation("fork-dst")).workspacePath;
    expect(readFileSync(join(dst, "sub", "b.txt"), "utf8")).toBe("beta\n");
  });

  it("a folder swapped for a link to outside while the fork copies is never followed: no fork holds what is outside", async () => {
    const ws = (await fx.client.createConversation("race-src")).workspacePath;
    const outside = mkdtempSync(join(tmpdir(), "enclave-fork-outside-"));
    const secret = `secret-${randomBytes(8).toString("hex")}`;
    const swapper = spawn(process.execPath, [SWAPPER, ws, outside, secret, "60"], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      await new Promise((r) => setTimeout(r, 300));
      const forks = [];
      for (let i = 0; i < 25; i++) forks.push(await fx.client.forkConversation("race-src", `race-${i}`));
      for (const f of forks) expect(contents(f.workspacePath).filter((c) => c.includes(secret))).toEqual([]);
    } finally {
      writeFileSync(join(ws, ".race-stop"), "");
      await once(swapper, "exit");
      rmSync(outside, { recursive: true, force: true });
    }
  }, 120_000);

  it("is audited with its source and who forked it; an existing id is already_exists, a missing source not_found", async () => {
    const events = fx.cp.auditHistory("fork-dst").filter((e) => e.kind === "conversation_forked");
    expect(events).toHaveLength(1);
    expect(events[0]?.detail).toMatch(/^forked from `fork-src` by local: \d+ files/);
    expect(await outcome(fx.client.forkConversation("fork-src", "fork-dst"))).toMatchObject({ code: "already_exists" });
    expect(await outcome(fx.client.forkConversation("fork-src", "fork-src"))).toMatchObject({ code: "already_exists" });
    expect(await outcome(fx.client.forkConversation("no-such", "x"))).toMatchObject({ code: "not_found" });
    expect(await outcome(fx.client.forkConversation("fork-src", "bad id!"))).toMatchObject({ code: "invalid_arguments" });
    // A generated id, as CreateConversation makes.
    const generated = await fx.client.forkConversation("fork-src");
    expect(generated.id).toMatch(/^c-[0-9a-f]{10}$/);
    expect(generated.forkedFrom).toBe("fork-src");
  });
});

describe("fork between tenants and past the quota", () => {
  let svc: TenantService<"acme" | "globex">;

  beforeAll(async () => {
    svc = await startTenantService({
      tenants: ["acme", "globex"],
      quotas: { acme: { maxDiskBytes: 1024 * 1024 } },
      transport: "unix",
      prefix: "enclave-fork-",
    });
  });
  afterAll(async () => svc?.close());

  it("a tenant cannot fork another tenant's conversation: not_found, as for a missing one", async () => {
    await svc.client("acme").createConversation("secret");
    writeFileSync(join(svc.cp.getConversation("acme.secret").workspacePath, "secret.txt"), "acme's\n");
    const globex = svc.client("globex");
    const theirs = await outcome(globex.forkConversation("secret", "stolen"));
    const missing = await outcome(globex.forkConversation("never-made", "stolen"));
    expect(theirs).toMatchObject({ code: "not_found" });
    expect({ ...theirs, message: theirs.message.replaceAll("secret", "X") }).toEqual({ ...missing, message: missing.message.replaceAll("never-made", "X") });
    // Naming it as an operator would (tenant.id) is no way round.
    expect(await outcome(globex.forkConversation("acme.secret", "stolen"))).toMatchObject({ code: "invalid_arguments" });
    expect((await globex.listConversations()).map((c) => c.id)).toEqual([]);
    // Its own fork lands in its own tenant, and says where it came from in its own terms.
    const own = await svc.client("acme").forkConversation("secret", "copy");
    expect(own).toMatchObject({ id: "copy", tenant: "acme", forkedFrom: "secret", workspacePath: "" });
  });

  it("a workspace past the tenant's maxDiskBytes is not forked (quota_exceeded), and nothing of the fork stays", async () => {
    const acme = svc.client("acme");
    await acme.createConversation("big");
    const ws = svc.cp.getConversation("acme.big").workspacePath;
    writeFileSync(join(ws, "small.txt"), "fits\n");
    writeFileSync(join(ws, "large.bin"), Buffer.alloc(2 * 1024 * 1024, 1));
    const before = readdirSync(join(svc.config.dataDir, "tenant-workspaces")).length;
    const refused = await outcome(acme.forkConversation("big", "big-fork"));
    expect(refused).toMatchObject({ code: "quota_exceeded" });
    expect(refused.message).toMatch(/maxDiskBytes/);
    expect((await acme.listConversations()).map((c) => c.id)).not.toContain("big-fork");
    expect(readdirSync(join(svc.config.dataDir, "tenant-workspaces")).length).toBe(before);
    // The refusal is audited as a quota refusal of the tenant's.
    expect(svc.cp.auditHistory(undefined, "acme").some((e) => e.kind === "quota_exceeded" && e.detail.includes("maxDiskBytes"))).toBe(true);
  });
});

/** The host folder or volume an enclosure's /workspace is, as the engine says. */
async function workspaceMount(containerId: string): Promise<{ type: string; source: string; rw: boolean }> {
  const info = await docker.getContainer(containerId).inspect();
  const m = info.Mounts.find((x) => x.Destination === "/workspace");
  return { type: m?.Type ?? "", source: (m?.Type === "volume" ? m.Name : m?.Source) ?? "", rw: m?.RW ?? false };
}

describe.each(TEST_RUNTIMES)("fork of an enclosure under %s", (runtime) => {
  let fx: Fixture;

  beforeAll(async () => {
    fx = await startFixture();
  });
  afterAll(async () => fx?.close());

  async function sh(conversation: string, command: string): Promise<string> {
    const run = (await fx.client.openRun(conversation, { approvalPolicy: "never" })).id;
    const r = await fx.client.callTool(run, "exec", { command });
    expect(r.isError, resultText(r)).toBe(false);
    // Without the exec tool's closing line ("[exit code 0, 10 ms]").
    return resultText(r)
      .split("\n")
      .filter((l) => !l.startsWith("[exit code"))
      .join("\n")
      .trim();
  }

  for (const mode of ["bind", "copy"] as const) {
    it(`${mode} mode: a running enclosure with the same image and options, its own workspace, and the files as they were`, async () => {
      const [a, b] = [`fa-${mode}-${runtime}`, `fb-${mode}-${runtime}`];
      writeFileSync(join((await fx.client.createConversation(a)).workspacePath, "host.txt"), "from the host\n");
      const options = { runtime, workspaceMode: mode, memoryBytes: 384 * 1024 * 1024, pidsLimit: 300, cpus: 0.75 };
      const source = await fx.client.startEnclosure(a, mode === "copy" ? { ...options, diskLimitBytes: 64 * 1024 * 1024 } : options);
      // Written inside and not yet on the host in copy mode: the fork takes the enclosure's files.
      await sh(a, "echo inside > inside.txt");
      const fork = await fx.client.forkConversation(a, b);
      expect(fork.forkedFrom).toBe(a);
      expect(fork.placement).toBe("enclosure");
      const [se, fe] = [source.enclosure, fork.enclosure];
      expect(fe?.state).toBe("running");
      expect(fe?.containerId).not.toBe(se?.containerId);
      expect({ image: fe?.image, runtime: fe?.runtime, mode: fe?.workspaceMode, limits: fe?.limits, relaxations: fe?.relaxations }).toEqual({
        image: se?.image,
        runtime: se?.runtime,
        mode: se?.workspaceMode,
        limits: se?.limits,
        relaxations: se?.relaxations,
      });
      expect(fe?.notes.some((n) => n.includes(`forked from \`${a}\``) && n.includes("memory was not"))).toBe(true);
      // The engine's own view: two workspaces, neither the other's.
      const [sm, fm] = [await workspaceMount(se?.containerId ?? ""), await workspaceMount(fe?.containerId ?? "")];
      expect(sm.type).toBe(mode === "copy" ? "volume" : "bind");
      expect(fm.type).toBe(sm.type);
      expect(fm.source).not.toBe(sm.source);
      expect(fm.source).not.toBe("");
      const info = await docker.getContainer(fe?.containerId ?? "").inspect();
      expect(info.HostConfig.Runtime).toBe(runtime);
      expect(info.HostConfig.NetworkMode).toBe("none");
      expect(info.HostConfig.ReadonlyRootfs).toBe(true);
      // Every writable mount of one is none of the other's.
      const writable = async (id: string): Promise<string[]> =>
        (await docker.getContainer(id).inspect()).Mounts.filter((m) => m.RW).map((m) => (m.Type === "volume" ? (m.Name ?? "") : m.Source));
      const fw = new Set(await writable(fe?.containerId ?? ""));
      expect(fw.size).toBeGreaterThan(0);
      expect((await writable(se?.containerId ?? "")).filter((p) => fw.has(p))).toEqual([]);
      // The source was paused for the copy and runs on.
      expect((await docker.getContainer(se?.containerId ?? "").inspect()).State.Paused).toBe(false);
      expect(await sh(b, "cat host.txt inside.txt")).toBe("from the host\ninside");
      // Independent: a write in either is not seen in the other.
      await sh(b, "echo fork > inside.txt; echo only > fork-only.txt");
      await sh(a, "echo source > host.txt");
      expect(await sh(a, "cat inside.txt; ls")).toBe("inside\nhost.txt\ninside.txt");
      expect(await sh(b, "cat host.txt inside.txt")).toBe("from the host\nfork");
    }, 180_000);
  }

  it("a source asleep forks with the options its wake would start, its lifecycle and its egress policy", async () => {
    const [a, b] = [`fsleep-${runtime}`, `fsleep-b-${runtime}`];
    const mirror = { cidr: "127.0.0.1/32", ports: [3141] };
    await fx.client.createConversation(a, "", { lifecycle: { idleTimeoutSeconds: 1234 }, egress: [mirror] });
    await fx.client.startEnclosure(a, { runtime, memoryBytes: 384 * 1024 * 1024 });
    await sh(a, "echo asleep > asleep.txt");
    await fx.cp.sleepConversation(a, "operator");
    expect((await fx.client.getConversation(a)).lifecycleState).toBe("sleeping");
    const fork = await fx.client.forkConversation(a, b);
    expect(fork).toMatchObject({ forkedFrom: a, placement: "enclosure", idleTimeoutSeconds: 1234, lifecycleState: "active" });
    expect(fork.enclosure).toMatchObject({ runtime, state: "running" });
    expect(fork.enclosure?.limits?.memoryBytes).toBe(384 * 1024 * 1024);
    expect(fork.egress?.allow).toEqual([{ host: "", ...mirror }]);
    expect(await sh(b, "cat asleep.txt")).toBe("asleep");
    // The source still sleeps: a fork wakes nothing.
    expect((await fx.client.getConversation(a)).lifecycleState).toBe("sleeping");
  });

  it("--workspace-only forks the files and starts no enclosure", async () => {
    const a = `fw-${runtime}`;
    await fx.client.createConversation(a);
    await fx.client.startEnclosure(a, { runtime });
    await sh(a, "echo inside > inside.txt");
    const fork = await fx.client.forkConversation(a, `${a}-files`, { workspaceOnly: true });
    expect(fork.placement).toBe("host");
    expect(readFileSync(join(fork.workspacePath, "inside.txt"), "utf8")).toBe("inside\n");
  }, 120_000);
});
