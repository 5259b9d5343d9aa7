// The built-in worker host, so Enclave works without a harness-side one: a configured command line
// per tier (ENCLAVE_VIBE_COMMAND, or _FAST / _GOOD), run by /bin/sh -c in the conversation's
// workspace on the control plane's machine. The brief goes to stdin, output streams as progress,
// the result is stdout, the exit status decides done or failed. Each worker is its own process
// group, so killing it kills whatever it started too.
import { type ChildProcess, spawn } from "node:child_process";
import type { VibeConfig } from "../config.js";
import { LIMITS } from "../limits.js";
import { type Assignment, fullBrief, type VibeTier, type WorkerHost, type WorkerSink } from "./worker.js";

interface Running {
  child: ChildProcess;
  exited: Promise<void>;
  killedByUs: boolean;
  overran: boolean;
}

const keyOf = (a: Assignment): string => `${a.conversationId}/${a.workerId}/${a.attempt}`;

function tail(s: string, max: number): string {
  return s.length <= max ? s : `[… ${s.length - max} characters cut …]\n${s.slice(s.length - max)}`;
}

export class CommandHost implements WorkerHost {
  readonly name = "built-in command";
  private readonly running = new Map<string, Running>();

  constructor(private readonly config: VibeConfig) {}

  serves(_conversationId: string, tier: VibeTier): boolean {
    return this.config.commands[tier] !== "";
  }

  load(): number {
    return this.running.size;
  }

  start(a: Assignment, sink: WorkerSink): void {
    const command = this.config.commands[a.tier as VibeTier];
    const child = spawn("/bin/sh", ["-c", command], {
      cwd: a.workspacePath,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
      env: {
        ...process.env,
        ENCLAVE_CONVERSATION_ID: a.conversationId,
        ENCLAVE_WORKER_ID: a.workerId,
        ENCLAVE_WORKER_LABEL: a.label,
        ENCLAVE_WORKER_TIER: a.tier,
        ENCLAVE_WORKER_ATTEMPT: String(a.attempt),
        ENCLAVE_WORKSPACE: a.workspacePath,
      },
    });
    let stdout = "";
    let stderr = "";
    let spawnError = "";
    const entry: Running = { child, killedByUs: false, overran: false, exited: Promise.resolve() };
    entry.exited = new Promise<void>((resolve) => {
      child.on("error", (err) => {
        spawnError = err.message;
        resolve();
      });
      child.on("close", () => resolve());
    });
    this.running.set(keyOf(a), entry);
    child.stdout?.setEncoding("utf8").on("data", (t: string) => {
      stdout = tail(stdout + t, LIMITS.vibeResultChars);
      sink.progress(t);
    });
    child.stderr?.setEncoding("utf8").on("data", (t: string) => {
      stderr = tail(stderr + t, LIMITS.vibeOutputTailChars);
      sink.progress(t);
    });
    // A worker that does not read its stdin must not crash the control plane with EPIPE.
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(fullBrief(a));
    const overrun = setTimeout(() => {
      entry.overran = true;
      void this.killGroup(entry);
    }, this.config.workerTimeoutMs);
    let finished = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (finished) return;
      finished = true;
      clearTimeout(overrun);
      this.running.delete(keyOf(a));
      if (entry.killedByUs && !entry.overran) return; // vibe_kill already settled it
      const out = stdout.trim();
      if (entry.overran) sink.settle("failed", `${out}${out ? "\n" : ""}[ran over ${Math.round(this.config.workerTimeoutMs / 1000)} s and was killed]`);
      else if (spawnError) sink.settle("failed", `the worker command could not start: ${spawnError}`);
      else if (code === 0) sink.settle("done", out);
      else {
        const status = code !== null ? `exit code ${code}` : `killed by ${signal}`;
        sink.settle("failed", `${out}${out ? "\n" : ""}[${status}]${stderr.trim() ? `\nstderr:\n${stderr.trim()}` : ""}`);
      }
    };
    child.on("close", finish);
    // A spawn that failed (a missing workspace folder) never closes.
    child.on("error", () => {
      if (child.pid === undefined) finish(null, null);
    });
  }

  async kill(a: Assignment): Promise<void> {
    const entry = this.running.get(keyOf(a));
    if (entry) await this.killGroup(entry);
  }

  async killAll(): Promise<void> {
    await Promise.all([...this.running.values()].map((e) => this.killGroup(e)));
  }

  /** SIGTERM to the whole group, SIGKILL after a grace; resolves once the command has exited. */
  private async killGroup(entry: Running): Promise<void> {
    entry.killedByUs = true;
    const pid = entry.child.pid;
    if (pid === undefined) return;
    const signalGroup = (sig: NodeJS.Signals): void => {
      try {
        process.kill(-pid, sig);
      } catch {
        // Already gone.
      }
    };
    signalGroup("SIGTERM");
    const hard = setTimeout(() => signalGroup("SIGKILL"), LIMITS.vibeKillGraceMs);
    await entry.exited;
    clearTimeout(hard);
    // The leader may exit on SIGTERM while something it started ignores it.
    signalGroup("SIGKILL");
  }
}
