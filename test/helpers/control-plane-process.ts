// The control plane as a real process (`enclave serve` from dist/), for tests that stop it the way an
// operator or a crash would: SIGTERM, SIGKILL. Every wait is bounded.
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

export interface ControlPlaneProcess {
  child: ChildProcess;
  client: ControlPlaneClient;
  /** Where its API listens, as it said when ready (a TCP listen's port resolved). */
  address: string;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  /** Resolves with its exit code (or the signal that ended it) once it has exited. */
  exited: Promise<number | NodeJS.Signals>;
}

/**
 * logFile: its log (standard error) goes to this file, as to a log collector, instead of a pipe this
 * process reads (a bench's harness should not also be the control plane's log reader).
 */
/**
 * listen: a unix socket in the data folder by default; a TCP address such as 127.0.0.1:0 (with TLS and
 * tokens set by ENCLAVE_TLS_CERT, ENCLAVE_TLS_KEY and ENCLAVE_TOKENS_FILE in env) for a tenant's view.
 */
export async function startControlPlaneProcess(
  dataDir: string,
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 60_000,
  logFile?: string,
  listen = `unix://${join(dataDir, "cp.sock")}`,
): Promise<ControlPlaneProcess> {
  const logFd = logFile === undefined ? undefined : openSync(logFile, "a", 0o600);
  const child = spawn(
    process.execPath,
    [join(repoRoot, "control-plane", "dist", "src", "cli", "main.js"), "serve", "--data-dir", dataDir, "--listen", listen],
    {
      stdio: ["ignore", "pipe", logFd ?? "pipe"],
      // Info lines (the drain's, the reconnects') are what tests of a serving process read.
      env: { ...process.env, ENCLAVE_CONSOLE_LISTEN: "off", ENCLAVE_LOG_LEVEL: "info", ...env },
    },
  );
  let out = "";
  let err = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  if (logFd !== undefined) closeSync(logFd);
  const exited = new Promise<number | NodeJS.Signals>((resolve) => child.once("exit", (code, signal) => resolve(signal ?? code ?? -1)));
  const ready = await Promise.race([
    new Promise<boolean>((resolve) => {
      const check = (): void => {
        if (out.includes("listening on")) resolve(true);
      };
      child.stdout?.on("data", check);
      check();
    }),
    exited.then(() => false),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref()),
  ]);
  if (!ready) {
    child.kill("SIGKILL");
    throw new Error(`the control plane did not start; stderr:\n${err}\nstdout:\n${out}`);
  }
  const address = /listening on (\S+)/.exec(out)?.[1] ?? listen;
  return { child, client: new ControlPlaneClient(listen), address, stderr: () => (logFile === undefined ? err : readFileSync(logFile, "utf8")), exited };
}

/** Sends the signal and waits (bounded) for the process to exit; returns its exit code or signal. */
export async function stopControlPlaneProcess(p: ControlPlaneProcess, signal: NodeJS.Signals, timeoutMs = 60_000): Promise<number | NodeJS.Signals> {
  p.client.close();
  p.child.kill(signal);
  const result = await Promise.race([p.exited, new Promise<"late">((resolve) => setTimeout(() => resolve("late"), timeoutMs).unref())]);
  if (result === "late") {
    p.child.kill("SIGKILL");
    throw new Error(`the control plane did not exit within ${timeoutMs} ms of ${signal}; stderr:\n${p.stderr()}`);
  }
  return result;
}
