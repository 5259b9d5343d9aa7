// A control plane as its own process (`enclave serve` on a unix socket in a folder of its own), for
// the benches that measure it as a server: its memory and CPU are its own process's (/proc/PID), and
// the bench's client does not share its event loop.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { eventually } from "../helpers/wait.js";

export interface ServedControlPlane {
  client: ControlPlaneClient;
  pid: number;
  /** Sends it a signal (SIGUSR2: a heap snapshot, when started with --heapsnapshot-signal). */
  kill(signal: NodeJS.Signals): void;
  /** Stops it (SIGTERM, then SIGKILL after 60 s: hundreds of host agents take seconds); its host agents end with it. */
  stop(): Promise<void>;
}

/** CPU time (user + system) a process has used, in ms: /proc reports it in 1/100 s (USER_HZ). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command (which may hold spaces) start past the last ')'.
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}

/** Stops a child process: SIGTERM, then SIGKILL past the grace. */
export function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", () => {
      clearTimeout(t);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/**
 * `enclave serve` with its data in dir/data, the environment given on top of this process's, and
 * Node's own flags (`nodeArgs`: a CPU profile, a heap-snapshot signal) before the CLI.
 */
export async function serveControlPlane(dir: string, env: Record<string, string> = {}, nodeArgs: readonly string[] = []): Promise<ServedControlPlane> {
  const socket = join(dir, "cp.sock");
  const child = spawn(process.execPath, [...nodeArgs, join(repoRoot, "control-plane", "dist", "src", "cli", "main.js"), "serve"], {
    // No console: its fixed port may be another control plane's on this machine, and no bench reads it.
    env: { ...process.env, ENCLAVE_DATA_DIR: join(dir, "data"), ENCLAVE_LISTEN: `unix://${socket}`, ENCLAVE_CONSOLE_LISTEN: "off", ...env },
    stdio: ["ignore", "ignore", "pipe"],
  });
  // Its warnings and errors are the bench's to show; a line per call or conversation made is not.
  if (child.stderr)
    createInterface({ input: child.stderr }).on("line", (line) => {
      if (Number(/^\{"level":(\d+)/.exec(line)?.[1] ?? 100) >= 40) process.stderr.write(`${line}\n`);
    });
  const client = new ControlPlaneClient(`unix://${socket}`);
  const stop = async (): Promise<void> => {
    client.close();
    await stopChild(child, 60_000);
  };
  try {
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`enclave serve exited (${child.exitCode})`);
        return client.listConversationsPage({ pageSize: 1 }).then(
          () => true,
          () => false,
        );
      },
      "the control plane to serve",
      60_000,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { client, pid: child.pid as number, kill: (signal) => child.kill(signal), stop };
}
