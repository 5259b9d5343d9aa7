// Enclosures on a Docker engine that is not this machine's: a second dockerd in a network namespace
// made here, reached only over TCP with TLS (test/helpers/remote-engine.ts). Nothing is shared with
// it but the engine API: the image is sent through it (docker save | docker load), the workspace goes
// by copy, the agent is reached by exec. Then several engines with caps, and an engine that dies
// under a conversation. The enclosure image is a small one (test/fixtures/remote-engine-image), so
// sending it takes seconds rather than the minutes the 2.9 GB runtime image takes here.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import type { EnclosureAuditReport } from "@enclave/control-plane/hardening/audit-check.js";
import { loadConfig } from "@enclave/control-plane/config.js";
import { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { outcome } from "../helpers/call-outcome.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { type RemoteEngine, remoteEngineUnsupported, startRemoteEngine } from "../helpers/remote-engine.js";
import { ensureSmallEnclosureImage } from "../helpers/small-enclosure-image.js";
import { type Mask, expectTranscript } from "@enclave/test-kit/transcript.js";

/** Docker's own words for an engine that went away (and the container there) vary with how it went. */
const ENGINE_ERROR: Mask[] = [
  [/does not answer \([^)]*\)/g, "does not answer (<the engine's error>)"],
  [/\b[0-9a-f]{12}\b/g, "<container>"],
  [/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<time>"],
];

const unsupported = remoteEngineUnsupported();
const local = new Docker();

/** Rejects when `p` takes longer than ms: a call to a dead engine must answer, not hang. */
function bounded<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms).unref())]);
}

describe.skipIf(unsupported !== "")(`enclosures on a remote engine over TLS${unsupported ? ` (skipped: ${unsupported})` : ""}`, () => {
  let engine: RemoteEngine;
  let image: string;

  beforeAll(async () => {
    image = await ensureSmallEnclosureImage(local);
    engine = await startRemoteEngine("remote");
  }, 600_000);
  afterAll(async () => engine?.teardown(), 120_000);

  describe("one remote engine", () => {
    let fx: Fixture;
    let runId: string;
    let workspace: string;
    let containerId: string;

    beforeAll(async () => {
      fx = await startFixture((c) => {
        c.engines = [engine.config];
        c.enclosure.image = image;
      });
      workspace = (await fx.client.createConversation("far")).workspacePath;
      writeFileSync(join(workspace, "from-host.txt"), "host wrote this\n");
      writeFileSync(join(workspace, "pyproject.toml"), '[project]\nname = "far"\nversion = "0.1"\n');
      writeFileSync(join(workspace, "app.py"), 'def greet(name):\n    """Says hello to someone."""\n    return "hi " + name\n\n\nprint(greet("x"))\n');
      // No workspace mode given: copy, the only one a remote engine can have.
      const conv = await fx.client.startEnclosure("far");
      expect(conv.placement).toBe("enclosure");
      containerId = conv.enclosure?.containerId ?? "";
      runId = (await fx.client.openRun("far", { approvalPolicy: "never" })).id;
    }, 300_000);
    afterAll(async () => fx?.close(), 120_000);

    async function ok(tool: string, args: Record<string, unknown>): Promise<string> {
      const r = await fx.client.callTool(runId, tool, args);
      expect(r.isError, resultText(r)).toBe(false);
      return resultText(r);
    }

    it("runs on the remote engine (sent the image there through the API), in copy mode, and records the engine", async () => {
      const record = fx.cp.conversations.get("far").enclosure;
      expect(record).toMatchObject({ engine: "remote", workspaceMode: "copy", image });
      expect((await engine.docker.getContainer(containerId).inspect()).State.Running).toBe(true);
      await expect(local.getContainer(containerId).inspect()).rejects.toMatchObject({ statusCode: 404 });
      expect((await engine.docker.getImage(image).inspect()).RepoTags).toContain(image);
    });

    it("reads, writes and runs commands inside; the host folder changes only when the enclosure stops", async () => {
      expect(await ok("read", { path: "from-host.txt" })).toBe("host wrote this\n");
      await ok("write", { path: "inside.txt", content: "from the far enclosure\n" });
      expect(await ok("read", { path: "inside.txt" })).toBe("from the far enclosure\n");
      // Its cgroup is the second engine's (the helper gives it a parent of its own).
      const out = await ok("exec", { command: "id -u; node --version; cat /proc/self/cgroup | head -3" });
      // The enclosure's own uid from the reserved range there too, and it writes the workspace's root.
      const { base, count } = loadConfig().enclosure.uids;
      const uid = Number(/^(\d+)$/m.exec(out)?.[1]);
      expect(uid).toBeGreaterThanOrEqual(base);
      expect(uid).toBeLessThan(base + count);
      expect(out).toMatch(/v18\./);
      expect(out).toMatch(/enclave-engine-/);
    });

    it("evaluates a Python cell, searches with ast_grep and hovers through the language server", async () => {
      expect(await ok("eval", { language: "python", code: "x = 20\nx + 22", description: "define a variable in the far kernel" })).toMatch(/42/);
      expect(await ok("eval", { language: "python", code: "x * 2", description: "read the variable back from the kernel" })).toMatch(/40/);
      expect(await ok("ast_grep", { pattern: "greet($A)", path: "app.py" })).toMatch(/app\.py:6/);
      const hover = await ok("lsp", { action: "hover", file: "app.py", line: 6, symbol: "greet" });
      expect(hover).toContain("Says hello to someone.");
    });

    it("refuses bind mode there with remote_engine_unsupported", async () => {
      await fx.client.createConversation("far-bind");
      const refused = await outcome(fx.client.startEnclosure("far-bind", { workspaceMode: "bind" }));
      expect(refused.code).toBe("remote_engine_unsupported");
      // What to use instead, recorded.
      await expectTranscript(refused.message, "transcripts/remote-engine/bind-refused.txt");
      expect(fx.cp.conversations.get("far-bind").enclosure).toBeUndefined();
    });

    it("audits honestly: the engine's settings are read, the host kernel's half is not available, nothing passes on the agent's word", async () => {
      const report: EnclosureAuditReport = await fx.cp.auditEnclosure("far");
      expect(report.passed).toBe(false);
      expect(report.checks.length).toBeGreaterThan(10);
      for (const c of report.checks.filter((c) => c.item !== "egress")) {
        expect(c.ok, c.item).toBe(false);
        // Not failed: each says what could not be read or enforced there.
        expect(c.unavailable, c.item).not.toBe("");
      }
      // The egress item is the control plane's own (its proxy's tunnels and refusals, read here, not
      // on the engine's machine): with no policy, no tunnel is open, and that holds wherever the engine is.
      const egress = report.checks.find((c) => c.item === "egress");
      expect(egress?.ok).toBe(true);
      expect(egress?.outside).toContain("tunnel none");
      const network = report.checks.find((c) => c.item === "network");
      expect(network?.inside).toBe("interfaces lo; routes none");
      // The report as `enclave audit` prints it, whole: every item n/a, none ok, none failed.
      const uid = (fx.cp.conversations.get("far").enclosure?.user ?? "").split(":")[0] ?? "";
      const text = (await fx.client.auditEnclosure("far")).text;
      await expectTranscript(text, "transcripts/remote-engine/audit.txt", [
        [/: \d+ bytes total, \d+ free\b/g, ": <n> bytes total, <n> free"],
        [new RegExp(`\\b${uid}\\b`, "g"), "<uid>"],
        [/\benclosure [0-9a-f]{12}\b/g, "enclosure <container>"],
        [/\b(enclave-[\w-]+):[0-9a-f]{16}\b/g, "$1:<tag>"],
        [/\benclave-far-\w+-workspace\b/g, "enclave-far-<id>-workspace"],
        // The engine lists mounts in no fixed order.
        [
          /engine: [^;]+;/g,
          (m) =>
            `engine: ${m
              .slice("engine: ".length, -1)
              .split(/(?<=\)), /)
              .sort()
              .join(", ")};`,
        ],
      ]);
    });

    it("copies the workspace back when it stops, and removes the container and volume there", async () => {
      const conv = await fx.client.stopEnclosure("far");
      expect(conv.placement).toBe("host");
      expect(readFileSync(join(workspace, "inside.txt"), "utf8")).toBe("from the far enclosure\n");
      await expect(engine.docker.getContainer(containerId).inspect()).rejects.toMatchObject({ statusCode: 404 });
      const volumes = (await engine.docker.listVolumes()).Volumes ?? [];
      expect(volumes.filter((v) => v.Labels?.["org.enclave.conversation"] === "far")).toEqual([]);
    });
  });

  describe("several engines", () => {
    let fx: Fixture;

    beforeAll(async () => {
      fx = await startFixture((c) => {
        c.engines = [
          { name: "here", host: "", cap: 1 },
          { ...engine.config, cap: 1 },
        ];
        c.enclosure.image = image;
      });
      for (const id of ["s1", "s2", "s3"]) await fx.client.createConversation(id);
    }, 60_000);
    afterAll(async () => fx?.close(), 120_000);

    it("starts each enclosure on an engine with room, keeps it there, and says so when every engine is at its cap", async () => {
      await fx.client.startEnclosure("s1", { workspaceMode: "copy" });
      await fx.client.startEnclosure("s2", { workspaceMode: "copy" });
      const engines = ["s1", "s2"].map((id) => fx.cp.conversations.get(id).enclosure?.engine);
      expect(new Set(engines)).toEqual(new Set(["here", "remote"]));
      const full = await outcome(fx.client.startEnclosure("s3", { workspaceMode: "copy" }));
      expect(full.code).toBe("placement_unavailable");
      // Which engines, and their caps, recorded.
      await expectTranscript(full.message, "transcripts/remote-engine/every-engine-full.txt");
      // Each one is reached on its own engine.
      const run = (await fx.client.openRun("s2", { approvalPolicy: "never" })).id;
      expect(resultText(await fx.client.callTool(run, "exec", { command: "echo answered" }))).toMatch(/answered/);
      // A bind-mode start can only go to the local engine, which is full.
      await fx.client.stopEnclosure("s1");
      await fx.client.stopEnclosure("s2");
      await fx.client.startEnclosure("s3", { workspaceMode: "bind" });
      expect(fx.cp.conversations.get("s3").enclosure?.engine).toBe("here");
      await fx.client.stopEnclosure("s3");
    }, 300_000);
  });

  describe("a restart of the control plane", () => {
    it("reaches the enclosure again on the engine its record names, with its kernel's state", async () => {
      const dataDir = mkdtempSync(join(tmpdir(), "enclave-test-"));
      const config = loadConfig({ dataDir, listen: `unix://${join(dataDir, "cp.sock")}` });
      // The remote engine first: with no load there it wins every tie, so the enclosure goes there.
      config.engines = [engine.config, { name: "here", host: "", cap: 0 }];
      config.enclosure.image = image;
      const cell = (cp: ControlPlane, run: string, code: string): Promise<string> =>
        cp.callTool(run, "eval", JSON.stringify({ language: "python", code, description: "a cell that outlives the control plane" })).then((r) => {
          expect(r.isError, JSON.stringify(r.parts)).toBe(false);
          return JSON.stringify(r.parts);
        });
      let cp = await ControlPlane.start(config);
      try {
        cp.createConversation({ id: "kept" });
        await cp.startEnclosure("kept", { workspaceMode: "copy" });
        expect(cp.conversations.get("kept").enclosure?.engine).toBe("remote");
        const run = cp.openRun({ approvalPolicy: "never", conversationId: "kept", resources: [] }).id;
        await cell(cp, run, "kept_value = 6 * 7");
        await cp.close();
        cp = await ControlPlane.start(config);
        expect(cp.conversations.get("kept").enclosure).toMatchObject({ engine: "remote", state: "running" });
        const again = cp.openRun({ approvalPolicy: "never", conversationId: "kept", resources: [] }).id;
        expect(await cell(cp, again, "kept_value")).toMatch(/42/);
        await cp.stopEnclosure("kept");
      } finally {
        await cp.deleteConversation("kept").catch(() => undefined);
        await cp.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
    }, 300_000);
  });

  describe("an engine that dies under a conversation", () => {
    let fx: Fixture;

    beforeAll(async () => {
      fx = await startFixture((c) => {
        c.engines = [engine.config];
        c.enclosure.image = image;
      });
      await fx.client.createConversation("doomed");
      await fx.client.startEnclosure("doomed");
    }, 300_000);
    afterAll(async () => fx?.close(), 120_000);

    it("reports enclosure_dead, does not hang, and can be stopped to go on on the host", async () => {
      const run = (await fx.client.openRun("doomed", { approvalPolicy: "never" })).id;
      expect(resultText(await fx.client.callTool(run, "exec", { command: "echo alive" }))).toMatch(/alive/);
      engine.kill();
      const after = await bounded(fx.client.callTool(run, "exec", { command: "echo still" }), 60_000, "a call after the engine died");
      expect(after.errorCode, resultText(after)).toBe("enclosure_dead");
      // enclosure_dead covers a dead container too: the recorded answer says its engine went (Docker's own error masked).
      await expectTranscript(resultText(after), "transcripts/remote-engine/engine-gone.txt", ENGINE_ERROR);
      // Later calls say the same at once.
      expect((await bounded(fx.client.callTool(run, "read", { path: "x" }), 30_000, "a second call")).errorCode).toBe("enclosure_dead");
      const conv = await bounded(fx.client.stopEnclosure("doomed"), 60_000, "stopping the dead enclosure");
      expect(conv.placement).toBe("host");
      await expectTranscript(
        fx.cp.conversations.get("doomed").notCopiedBack?.join("\n") ?? "",
        "transcripts/remote-engine/engine-gone-not-copied-back.txt",
        ENGINE_ERROR,
      );
    }, 180_000);
  });
});
