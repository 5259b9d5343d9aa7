// Host placement is confined: the host agent and everything it starts run under bubblewrap as an
// unprivileged account, with the workspace the only writable path, the system read-only, a private
// /tmp, no network, no view of the data folder or other workspaces, and an environment built from an
// allow-list (nothing of the control plane's, its console token included).
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";
import { until } from "../helpers/wait.js";

const SECRET = "console-token-that-must-not-leak";
let fx: Fixture;
let runId: string;
let workspace: string;
let otherWorkspace: string;
let outside: string;
let listener: Server;
let port = 0;

beforeAll(async () => {
  // The control plane's own environment holds a secret (as a served console's token would).
  process.env.ENCLAVE_CONSOLE_TOKEN = SECRET;
  process.env.ENCLAVE_TEST_MARKER = "control-plane-only";
  fx = await startFixture();
  workspace = (await fx.client.createConversation("sbx1")).workspacePath;
  otherWorkspace = (await fx.client.createConversation("sbx2")).workspacePath;
  writeFileSync(join(otherWorkspace, "secret.txt"), "another conversation's file\n");
  runId = (await fx.client.openRun("sbx1", { resources: ["workspace", "shell", "kernel"], approvalPolicy: "never" })).id;
  outside = mkdtempSync(join(tmpdir(), "enclave-outside-"));
  chmodSync(outside, 0o777);
  writeFileSync(join(outside, "host-secret.txt"), "a host file\n");
  listener = createServer((c) => c.end("reached the host\n"));
  await new Promise<void>((r) => listener.listen(0, "127.0.0.1", () => r()));
  port = (listener.address() as { port: number }).port;
});
afterAll(async () => {
  delete process.env.ENCLAVE_CONSOLE_TOKEN;
  delete process.env.ENCLAVE_TEST_MARKER;
  listener?.close();
  await fx?.close();
  if (outside) rmSync(outside, { recursive: true, force: true });
});

async function sh(command: string): Promise<{ text: string; isError: boolean }> {
  const r = await fx.client.callTool(runId, "exec", { command });
  return { text: resultText(r), isError: r.isError };
}

describe("host placement sandbox", () => {
  it("runs the agent and its commands as an unprivileged account with no capabilities", async () => {
    const r = await sh("id -u; grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status");
    expect(r.text).not.toMatch(/^0$/m);
    expect(Number(r.text.split("\n")[0])).toBeGreaterThan(0);
    expect(r.text).toMatch(/CapEff:\s+0+\b/);
    expect(r.text).toMatch(/CapBnd:\s+0+\b/);
    expect(r.text).toMatch(/NoNewPrivs:\s+1/);
  });

  it("sees the workspace at /workspace and writes nowhere else", async () => {
    const r = await sh(
      [
        "pwd",
        "echo ok > /workspace/inside.txt && echo wrote-workspace",
        "for p in /usr/x /etc/x /opt/enclave/agent/x /x; do (echo pwned > $p) 2>/dev/null && echo WROTE $p; done",
        `(echo pwned > ${outside}/pwned.txt) 2>/dev/null && echo WROTE-OUTSIDE`,
        "true",
      ].join("; "),
    );
    expect(r.text).toMatch(/^\/workspace$/m);
    expect(r.text).toContain("wrote-workspace");
    expect(r.text).not.toContain("WROTE");
    expect(readFileSync(join(workspace, "inside.txt"), "utf8")).toBe("ok\n");
    expect(existsSync(join(outside, "pwned.txt"))).toBe(false);
  });

  it("has no view of the data folder, other workspaces, or the host's /tmp", async () => {
    const r = await sh(
      [
        `ls ${fx.dataDir} 2>&1 | head -1`,
        `cat ${join(otherWorkspace, "secret.txt")} 2>&1`,
        `cat ${join(outside, "host-secret.txt")} 2>&1`,
        "ls -A /tmp",
        "true",
      ].join("; "),
    );
    expect(r.text).not.toContain("another conversation's file");
    expect(r.text).not.toContain("a host file");
    expect(r.text).not.toContain("cp.sock");
    expect(r.text).not.toContain("audit.db");
    expect(r.text).toMatch(/No such file or directory/);
  });

  it("has no network by default: a listener on the host's loopback is unreachable", async () => {
    const r = await sh(
      `python3 -c "import socket; s=socket.create_connection(('127.0.0.1', ${port}), timeout=3); print('CONNECTED', s.recv(100))" 2>&1; cat /proc/net/dev | tail -n +3 | cut -d: -f1`,
    );
    expect(r.text).not.toContain("CONNECTED");
    expect(r.text).toMatch(/(Network is unreachable|Connection refused)/);
    const interfaces = r.text
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => /^[a-z0-9]+$/.test(l));
    expect(interfaces).toEqual(["lo"]);
  });

  it("builds the environment from an allow-list: nothing of the control plane's reaches exec or a kernel cell", async () => {
    const env = await sh("env");
    expect(env.text).not.toContain(SECRET);
    expect(env.text).not.toContain("ENCLAVE_TEST_MARKER");
    expect(env.text).not.toContain("ENCLAVE_DATA_DIR");
    const cell = await fx.client.callTool(runId, "eval", {
      description: "list the environment a cell sees",
      code: "import os\nprint(sorted(k for k in os.environ if 'ENCLAVE' in k or 'TOKEN' in k), any('" + SECRET + "' in v for v in os.environ.values()))",
    });
    expect(resultText(cell)).toContain("[] False");
  });

  it("passes the audit, read from the host: account, capabilities, namespaces, network, writable paths, environment", async () => {
    await sh("true");
    const report = await fx.client.auditEnclosure("sbx1");
    expect(report.placement).toBe("host");
    expect(report.relaxations).toEqual([]);
    const items = Object.fromEntries(report.checks.map((c) => [c.item, c]));
    expect(Object.keys(items).sort()).toEqual([
      "capabilities",
      "cgroup",
      "egress",
      "engine sockets",
      "environment",
      "namespaces",
      "network",
      "sandbox processes",
      "user",
      "writable host paths",
    ]);
    for (const c of report.checks) expect(c.ok, `${c.item}: ${c.outside}`).toBe(true);
    expect(items["writable host paths"]?.outside).toBe("writable mounts of host filesystems: /run/enclave/state, /workspace");
    expect(items.network?.outside).toBe("interfaces lo");
    expect(report.passed).toBe(true);
  });

  it("kills the whole sandbox with the agent: nothing it started outlives it", async () => {
    // A process that left the command's group and its output behind outlives the command, on
    // purpose (a server); it must not outlive the agent. Its own marker keeps other tests' out.
    const marker = `301.${process.pid}`;
    const sleepers = (): string[] =>
      readdirSync("/proc")
        .filter((p) => /^\d+$/.test(p))
        .filter((p) => {
          try {
            return readFileSync(`/proc/${p}/cmdline`, "utf8") === `sleep\u0000${marker}\u0000`;
          } catch {
            return false;
          }
        });
    await sh(`setsid -f sleep ${marker} >/dev/null 2>&1; echo started`);
    // setsid -f returns before its child has become `sleep`: wait for it (the positive control).
    await until(() => sleepers().length === 1, "the detached sleep to run after the command", 20_000);
    const pid = fx.cp.hostAgents.pid("sbx1");
    expect(pid).toBeGreaterThan(0);
    await fx.cp.hostAgents.stop("sbx1");
    await until(() => sleepers().length === 0, "the detached sleep to go with the sandbox", 20_000);
  });

  it("runs a project-local language server only inside the sandbox", async () => {
    // A workspace "language server" that tries to reach the host: under a read-only plan surface the
    // lsp tool may start it, and then it runs confined like everything else.
    mkdirSync(join(workspace, "node_modules/.bin"), { recursive: true });
    writeFileSync(join(workspace, "package.json"), "{}\n");
    writeFileSync(join(workspace, "tsconfig.json"), "{}\n");
    writeFileSync(join(workspace, "index.ts"), "export const x = 1;\n");
    const script = join(workspace, "node_modules/.bin/typescript-language-server");
    writeFileSync(
      script,
      `#!/bin/sh\nid -u > /workspace/ran-as.txt\necho pwned > ${outside}/lsp-pwned.txt 2>/dev/null\ncat ${join(otherWorkspace, "secret.txt")} > /workspace/stolen.txt 2>/dev/null\nexit 1\n`,
    );
    chmodSync(script, 0o755);
    const plan = (await fx.client.openRun("sbx1", { approvalPolicy: "never", surface: "plan", resources: ["lsp"] })).id;
    await fx.client.callTool(plan, "lsp", { action: "hover", file: "index.ts", line: 1, symbol: "x" });
    expect(existsSync(join(outside, "lsp-pwned.txt"))).toBe(false);
    expect(readFileSync(join(workspace, "ran-as.txt"), "utf8").trim()).not.toBe("0");
    expect(existsSync(join(workspace, "stolen.txt")) ? readFileSync(join(workspace, "stolen.txt"), "utf8") : "").toBe("");
    expect(statSync(workspace).uid).not.toBe(0);
  });
});

describe("host placement with ENCLAVE_HOST_NETWORK=on", () => {
  it("reaches the host's loopback (the positive control of the no-network case) and shows the weakening in the audit", async () => {
    const open = await startFixture((c) => {
      c.hostSandbox.network = true;
    });
    try {
      await open.client.createConversation("sbx-net");
      const run = (await open.client.openRun("sbx-net", { resources: ["shell"], approvalPolicy: "never" })).id;
      const r = await open.client.callTool(run, "exec", {
        command: `python3 -c "import socket; s=socket.create_connection(('127.0.0.1', ${port}), timeout=3); print('CONNECTED', s.recv(100))" 2>&1`,
      });
      expect(resultText(r)).toContain("CONNECTED");
      const report = await open.client.auditEnclosure("sbx-net");
      expect(report.relaxations).toEqual(["host network shared (ENCLAVE_HOST_NETWORK=on)"]);
      const network = report.checks.find((c) => c.item === "network");
      await expectTranscript(network?.expected ?? "", "transcripts/host-sandbox/network-expected-relaxed.txt");
      expect(report.checks.find((c) => c.item === "namespaces")?.outside).toBe("shares the control plane's net");
      expect(report.passed).toBe(true);
    } finally {
      await open.close();
    }
  });
});
