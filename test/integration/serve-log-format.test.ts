// What a person sees of `enclave serve` at a terminal and what a pipe gets: under a pseudo-terminal
// (util-linux's `script`) the log lines are for reading (`12:03:04 info  control plane serving …`),
// not JSON, and Ctrl-C stops it with a line of the same kind; with standard error a pipe they are
// JSON lines, and --log-format json keeps JSON on a terminal too.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { until } from "../helpers/wait.js";

const dir = mkdtempSync(join(tmpdir(), "enclave-serve-log-format-"));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

const BANNER_END = "Try it from another terminal:";
// The environment a person's shell has: no format chosen.
const env = { ...process.env, ENCLAVE_LOG_FORMAT: "", ENCLAVE_LOG_LEVEL: "" };

function serveArgs(name: string, more: string[] = []): string[] {
  return [join(repoRoot, "bin", "enclave"), "serve", "--listen", "127.0.0.1:0", "--console", "off", "--data-dir", join(dir, name), ...more];
}

function quote(arg: string): string {
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** `enclave serve` under a pseudo-terminal until its banner, then Ctrl-C typed at it; all it printed, without the terminal's \r. */
async function serveOnTerminal(name: string, more: string[] = []): Promise<string> {
  const child = spawn("script", ["-qfec", serveArgs(name, more).map(quote).join(" "), "/dev/null"], { stdio: ["pipe", "pipe", "pipe"], env });
  children.push(child);
  let out = "";
  child.stdout?.on("data", (c: Buffer) => (out += c.toString("utf8")));
  child.stderr?.on("data", (c: Buffer) => (out += c.toString("utf8")));
  await until(() => out.includes(BANNER_END) || child.exitCode !== null, "the serve banner", 60_000);
  child.stdin?.write("\u0003");
  await until(() => child.exitCode !== null, "serve to stop on Ctrl-C", 30_000);
  return out.replaceAll("\r", "");
}

/** Strips the level's colour (a terminal gets it). */
function plain(text: string): string {
  return text.replace(/\u001b\[\d+m/g, "");
}

describe("enclave serve's log lines", () => {
  it("on a terminal: lines for a person, none of them JSON, the banner apart from them; Ctrl-C's stop line too", async () => {
    const out = plain(await serveOnTerminal("tty"));
    const lines = out.split("\n").filter(Boolean);
    expect(
      lines.filter((l) => l.startsWith("{")),
      out,
    ).toEqual([]);
    expect(out).toMatch(/^\d\d:\d\d:\d\d info {2}control plane serving {2}api=127\.0\.0\.1:\d+ console=off metrics=off tracing=off dataDir=\S+$/m);
    // The terminal echoes the Ctrl-C as ^C before the line.
    expect(out).toMatch(/^(\^C)?\d\d:\d\d:\d\d info {2}control plane stopping: draining .* signal=SIGINT$/m);
    // The banner is whole: its lines follow one another with no log line among them.
    const start = lines.findIndex((l) => l.startsWith("Enclave control plane listening on"));
    const end = lines.indexOf(BANNER_END);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(lines.slice(start, end).filter((l) => /^\d\d:\d\d:\d\d /.test(l))).toEqual([]);
  }, 120_000);

  it("on a terminal with --log-format json: JSON lines", async () => {
    const out = await serveOnTerminal("tty-json", ["--log-format", "json"]);
    const serving = out.split("\n").find((l) => l.includes('"msg":"control plane serving"'));
    expect(JSON.parse(serving ?? "null")).toMatchObject({ level: 30, msg: "control plane serving", console: "off" });
  }, 120_000);

  it("to a pipe: JSON lines, every one", async () => {
    const child = spawn(serveArgs("pipe")[0] as string, serveArgs("pipe").slice(1), { stdio: ["ignore", "pipe", "pipe"], env });
    children.push(child);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr?.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    await until(() => stdout.includes(BANNER_END) || child.exitCode !== null, "the serve banner", 60_000);
    child.kill("SIGTERM");
    await until(() => child.exitCode !== null, "serve to stop", 30_000);
    const lines = stderr
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { msg: string });
    expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(["control plane serving", expect.stringMatching(/^control plane stopping/)]));
  }, 120_000);
});
