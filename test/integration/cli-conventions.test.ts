// The command line's conventions, through the real `enclave` CLI against a real control plane (host
// placement): --version, --json on every command that prints data, options a command does not take
// refused as usage errors, and the exit statuses (0 ok, 1 tool error or refusal, 2 usage, 4
// unreachable; 3, the egress audit's failed check, needs an enclosure: test/security/egress-audit).
// Also `doctor` and `config`, which need no control plane.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AGENT_VERSION } from "@enclave/proto/version.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";

const exec = promisify(execFile);
const cli = join(repoRoot, "bin", "enclave");

interface Out {
  stdout: string;
  stderr: string;
  code: number;
}

async function run(args: string[], env?: NodeJS.ProcessEnv): Promise<Out> {
  try {
    const r = await exec(cli, args, { timeout: 120_000, env: env ?? process.env });
    return { ...r, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

let fx: Fixture;
const enclave = (args: string[]): Promise<Out> => run([...args, "--address", fx.client.address]);

/** Parses one JSON line of standard output, failing with what was printed when it is not JSON. */
function json<T>(out: Out): T {
  try {
    return JSON.parse(out.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${out.code}):\n${out.stdout}\n--- stderr\n${out.stderr}`);
  }
}

/** Every line of standard output as JSON. */
function jsonLines<T>(out: Out): T[] {
  return out.stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as T);
}

beforeAll(async () => {
  fx = await startFixture();
});

afterAll(async () => fx?.close());

describe("--version", () => {
  it("prints the package's version and the agent's, as text and as JSON", async () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, "control-plane", "package.json"), "utf8")) as { version: string };
    const text = await run(["--version"]);
    expect(text.code).toBe(0);
    await expectTranscript(text.stdout, "transcripts/cli-conventions/version.txt", [[/\d+\.\d+\.\d+/g, "<version>"]]);
    const asJson = await run(["--version", "--json"]);
    expect(asJson.code).toBe(0);
    expect(json(asJson)).toEqual({ enclave: pkg.version, agent: AGENT_VERSION });
  });
});

describe("exit statuses", () => {
  it("refuses what the command line gets wrong with 2, naming the option and the command's options", async () => {
    const cases = [
      ["runs", "list", "--bogus"],
      ["runs", "list", "--yes"],
      ["tokens", "list", "--json"],
      ["conversations", "get"],
      ["frobnicate"],
      ["runs", "list", "--address"],
      // The image pipeline's entry (bin/enclave dispatches to it) follows the same rules, before any engine is reached.
      ["images", "inspect", "--yes"],
      ["images", "push"],
    ];
    const sections: string[] = [];
    for (const args of cases) {
      const out = await run(args);
      expect(out.code, args.join(" ")).toBe(2);
      // Only the first paragraph: the unknown command's message goes on with the whole usage text.
      sections.push(`$ enclave ${args.join(" ")}\nexit ${out.code}\n${out.stderr.split("\n\n")[0]?.trimEnd() ?? ""}`);
    }
    await expectTranscript(`${sections.join("\n\n")}\n`, "transcripts/cli-conventions/usage-errors.txt");
  });

  it("exits 4 when no control plane answers, 1 when a tool answers an error, 0 when it succeeds", async () => {
    const dir = mkdtempSync(join(tmpdir(), "enclave-cli-"));
    try {
      const nowhere = await run(["runs", "list", "--address", `unix://${join(dir, "nobody.sock")}`]);
      expect(nowhere.code).toBe(4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await fx.client.createConversation("cli-exit");
    const missing = await enclave(["tool", "call", "read", '{"path":"missing.txt"}', "-c", "cli-exit"]);
    expect(missing.code).toBe(1);
    const ok = await enclave(["tool", "call", "list", "{}", "-c", "cli-exit"]);
    expect(ok.code, ok.stderr).toBe(0);
  });
});

interface ToolCallJson {
  isError: boolean;
  errorCode: string;
  parts: { type: string; text?: string }[];
  durationMs: number;
  details: unknown;
}

describe("--json", () => {
  it("prints a tool call's result as one object, its error code included, and exits by isError", async () => {
    const id = "cli-json-tool";
    await fx.client.createConversation(id);
    writeFileSync(join(fx.cp.getConversation(id).workspacePath, "hello.txt"), "hello\n");
    const read = await enclave(["tool", "call", "read", '{"path":"hello.txt"}', "-c", id, "--json"]);
    expect(read.code, read.stderr).toBe(0);
    const ok = json<ToolCallJson>(read);
    expect(ok.isError).toBe(false);
    expect(ok.errorCode).toBe("");
    expect(typeof ok.durationMs).toBe("number");
    expect(ok.parts.map((p) => p.type)).toContain("text");
    // The result as data beside the parts.
    expect(ok.details).toMatchObject({ path: "hello.txt", total_lines: 1, truncated: false });
    await expectTranscript(ok.parts.map((p) => p.text ?? "").join("\n"), "transcripts/cli-conventions/tool-call-json-read.txt");

    const missing = await enclave(["tool", "call", "read", '{"path":"missing.txt"}', "-c", id, "--json"]);
    expect(missing.code).toBe(1);
    const failed = json<ToolCallJson>(missing);
    expect(failed.isError).toBe(true);
    expect(failed.errorCode).toBe("not_found");
    // A refusal carries no data.
    expect(failed.details).toBeNull();

    // A streaming tool prints nothing as it streams: standard output is the one object.
    const shell = await enclave(["tool", "call", "exec", '{"command":"echo streamed"}', "-c", id, "--json", "--approval", "never"]);
    expect(shell.code, shell.stderr).toBe(0);
    expect(json<ToolCallJson>(shell).isError).toBe(false);
    expect(json<ToolCallJson>(shell).details).toMatchObject({ exit_code: 0, stdout: "streamed\n" });
  });

  it("prints conversations, runs, tools, placement, cards and the audit log as JSON", async () => {
    const id = "cli-json-lists";
    await fx.client.createConversation(id);
    const run = await fx.client.openRun(id, { approvalPolicy: "never" });
    await fx.client.callTool(run.id, "list", {});

    const conversations = await enclave(["conversations", "list", "--json"]);
    expect(conversations.code).toBe(0);
    expect(json<{ id: string }[]>(conversations).map((c) => c.id)).toContain(id);

    const got = await enclave(["conversations", "get", id, "--json"]);
    expect(json<{ id: string; placement: string }>(got)).toMatchObject({ id, placement: "host" });

    const runs = await enclave(["runs", "list", "-c", id, "--json"]);
    expect(runs.code).toBe(0);
    expect(json<{ id: string; conversationId: string }[]>(runs)).toEqual([expect.objectContaining({ id: run.id, conversationId: id })]);

    const tools = await enclave(["tools", "list", "-c", id, "--json"]);
    expect(tools.code).toBe(0);
    const read = json<{ name: string; inputSchema: unknown; detailsSchema: unknown }[]>(tools).find((t) => t.name === "read");
    expect(read?.inputSchema).toBeTypeOf("object");
    expect(read?.detailsSchema).toMatchObject({ type: "object", properties: { total_lines: expect.anything() as unknown } });

    const placement = await enclave(["placement", id, "--json"]);
    expect(placement.code).toBe(0);
    expect(json<{ placement: string; agentVersion: string }>(placement)).toMatchObject({ placement: "host", agentVersion: AGENT_VERSION });

    const cards = await enclave(["cards", id, "--json"]);
    expect(cards.code).toBe(0);
    expect(json(cards)).toEqual([]);

    const log = await enclave(["audit", "--log", id, "--json"]);
    expect(log.code).toBe(0);
    const events = jsonLines<{ kind: string; conversationId: string; tool: string }>(log);
    expect(events.map((e) => e.kind)).toContain("conversation_created");
    expect(events.find((e) => e.kind === "tool_call")?.tool).toBe("list");
    expect(events.every((e) => e.conversationId === id)).toBe(true);

    // A host sandbox is checked from outside; every check passes, so the status is 0.
    const audit = await enclave(["audit", id, "--json"]);
    expect(audit.code).toBe(0);
    expect(json<{ placement: string; passed: boolean }>(audit)).toMatchObject({ placement: "host", passed: true });
  });
});

interface DoctorJson {
  ok: boolean;
  checks: { id: string; ok: boolean; fix?: { make?: string; apt?: string } }[];
}

describe("doctor", () => {
  it("checks each part `make run` installs and exits 0 only when all are there", async () => {
    const out = await run(["doctor", "--json"]);
    const report = json<DoctorJson>(out);
    expect(report.checks.map((c) => c.id)).toEqual([
      "host-sandbox",
      "sandbox-account",
      "cgroups",
      "host-kernels",
      "host-servers",
      "host-debuggers",
      "static-cc",
    ]);
    expect(report.ok).toBe(report.checks.every((c) => c.ok));
    expect(out.code).toBe(report.ok ? 0 : 1);
    for (const c of report.checks.filter((x) => !x.ok)) expect(c.fix, c.id).toBeDefined();
  });

  it("names the fix for what is missing: with nothing on PATH but node, bubblewrap and the servers are missing", async () => {
    const bin = mkdtempSync(join(tmpdir(), "enclave-doctor-"));
    try {
      // bin/enclave needs dirname and node; nothing else of PATH.
      symlinkSync(process.execPath, join(bin, "node"));
      symlinkSync("/usr/bin/dirname", join(bin, "dirname"));
      const out = await run(["doctor", "--json"], { PATH: bin });
      expect(out.code).toBe(1);
      const report = json<DoctorJson>(out);
      expect(report.ok).toBe(false);
      const byId = new Map(report.checks.map((c) => [c.id, c]));
      expect(byId.get("host-sandbox")).toMatchObject({ ok: false, fix: { make: "make host-sandbox", apt: "apt-get install -y bubblewrap" } });
      expect(byId.get("host-servers")).toMatchObject({ ok: false, fix: { make: "make host-servers" } });
      // Without dpkg-query no Debian package counts as installed.
      expect(byId.get("static-cc")).toMatchObject({ ok: false, fix: { make: "make static-cc", apt: "apt-get install -y gcc libc6-dev" } });
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});

interface ConfigRow {
  name: string;
  value: unknown;
  source: string;
}

describe("config", () => {
  const secret = "enc_0123abcd_this-is-the-secret-token";
  const dataDir = mkdtempSync(join(tmpdir(), "enclave-config-"));
  const env: NodeJS.ProcessEnv = {
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    ENCLAVE_DATA_DIR: dataDir,
    ENCLAVE_ENCLOSURE_CPUS: "3",
    ENCLAVE_TOKEN: secret,
    ENCLAVE_CONSOLE_TOKEN: secret,
  };
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("shows each value with where it came from, and never a token", async () => {
    const out = await run(["config", "--listen", "127.0.0.1:7499", "--json"], env);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).not.toContain(secret);
    const rows = new Map(json<ConfigRow[]>(out).map((r) => [r.name, r]));
    expect(rows.get("listen")).toEqual({ name: "listen", value: "127.0.0.1:7499", source: "flag --listen" });
    expect(rows.get("dataDir")).toEqual({ name: "dataDir", value: dataDir, source: "env ENCLAVE_DATA_DIR" });
    expect(rows.get("enclosure.cpus")).toEqual({ name: "enclosure.cpus", value: 3, source: "env ENCLAVE_ENCLOSURE_CPUS" });
    expect(rows.get("enclosure.memoryBytes")?.source).toBe("default");
    expect(rows.get("client.token")?.source).toBe("env ENCLAVE_TOKEN");

    const text = await run(["config", "--listen", "127.0.0.1:7499", "--token", secret], env);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).not.toContain(secret);
    // The repository first: a checkout under the temporary folder would otherwise read as <tmp>.
    await expectTranscript(text.stdout.replaceAll(repoRoot, "<repo>"), "transcripts/cli-conventions/config.txt");
  });
});
