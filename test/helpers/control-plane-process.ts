// The control plane as a real process (`enclave serve` from dist/), for tests that stop it the way an
// operator or a crash would: SIGTERM, SIGKILL. Every wait is bounded.
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ControlPlaneClient } from "../../control-plane/src/client/control-plane-client.js";
import { repoRoot } from "../../control-plane/src/repo-paths.js";

export interface ControlPlaneProcess {
  child: ChildProcess;
  client: ControlPlaneClient;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  /** Resolves with its exit code (or the signal that ended it) once it has exited. */
  exited: Promise<number | NodeJS.Signals>;
}

/**
 * logFile: its log (standard error) goes to this file, as to a log collector, instead of a pipe this
 * process reads (a bench's harness should not also be the control plane's log reader).
 */
export async function startControlPlaneProcess(dataDir: string, env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000, logFile?: string): Promise<ControlPlaneProcess> {
  const listen = `unix://${join(dataDir, "cp.sock")}`;
  const logFd = logFile === undefined ? undefined : openSync(logFile, "a", 0o600);
  const child = spawn(process.execPath, [join(repoRoot, "dist", "control-plane", "src", "cli", "main.js"), "serve", "--data-dir", dataDir, "--listen", listen], {
    stdio: ["ignore", "pipe", logFd ?? "pipe"],
    // Info lines (the drain's, the reconnects') are what tests of a serving process read.
    env: { ...process.env, ENCLAVE_CONSOLE_LISTEN: "off", ENCLAVE_LOG_LEVEL: "info", ...env },
  });
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
  return { child, client: new ControlPlaneClient(listen), stderr: () => (logFile === undefined ? err : readFileSync(logFile, "utf8")), exited };
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
