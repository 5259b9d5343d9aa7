// The built-in worker host, so Enclave works without a harness-side one: a configured command line
// per tier (ENCLAVE_VIBE_COMMAND, or _FAST / _GOOD), run by /bin/sh -c in the conversation's
// placement — through its agent's Exec, inside the enclosure when there is one, else under the
// conversation's host agent — never as the control plane's own user. The vibe tools are read tier,
// so a worker may do only what its placement allows. The brief goes to stdin (never into the
// command line), output streams as progress, the result is stdout, the exit status decides done or
// failed. The agent runs each command as its own process group, so a kill reaches whatever it started.
import { StringDecoder } from "node:string_decoder";
import type { ClientDuplexStream, ServiceError } from "@grpc/grpc-js";
import { within } from "@enclave/proto/wait.js";
import type { ExecEvent, ExecExit, ExecRequest } from "@enclave/proto/gen/enclave/agent/v1/process.js";
import type { VibeConfig } from "../config.js";
import type { EnclaveError, EnclaveErrorCode } from "../errors.js";
import { LIMITS } from "../limits.js";
import type { AgentEndpoint } from "../placement/agent-endpoint.js";
import { type Assignment, fullBrief, type VibeTier, type WorkerHost, type WorkerSink } from "./worker.js";

/** Resolves the conversation's placement now (an enclosure's agent, or the host agent). */
export type PlacementOf = (conversationId: string) => Promise<AgentEndpoint>;

interface Running {
  /** Set once the placement is resolved and the command asked for. */
  call: ClientDuplexStream<ExecRequest, ExecEvent> | undefined;
  /** Resolves when the attempt is over, whatever ended it. */
  exited: Promise<void>;
  killedByUs: boolean;
  overran: boolean;
}

const keyOf = (a: Assignment): string => `${a.conversationId}/${a.workerId}/${a.attempt}`;

/** Agent errors that mean the command never ran (as opposed to an agent that went away). */
const NOT_STARTED = new Set<EnclaveErrorCode>(["not_found", "failed_precondition", "invalid_arguments", "outside_workspace"]);

/** Stdin goes down the stream in pieces well under a gRPC message's size limit. */
const STDIN_CHUNK_BYTES = 64 * 1024;

function tail(s: string, max: number): string {
  return s.length <= max ? s : `[… ${s.length - max} characters cut …]\n${s.slice(s.length - max)}`;
}

export class CommandHost implements WorkerHost {
  readonly name = "built-in command";
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly config: VibeConfig,
    private readonly placementOf: PlacementOf,
  ) {}

  serves(_conversationId: string, tier: VibeTier): boolean {
    return this.config.commands[tier] !== "";
  }

  load(): number {
    return this.running.size;
  }

  start(a: Assignment, sink: WorkerSink): void {
    let ended!: () => void;
    const entry: Running = { call: undefined, killedByUs: false, overran: false, exited: new Promise<void>((r) => (ended = r)) };
    this.running.set(keyOf(a), entry);
    const overrun = setTimeout(() => {
      entry.overran = true;
      void this.killAttempt(entry);
    }, this.config.workerTimeoutMs);
    let finished = false;
    /** out: the command's stdout; why: what ended it, when that was not a clean exit. */
    const finish = (state: "done" | "failed", out: string, why: string): void => {
      if (finished) return;
      finished = true;
      clearTimeout(overrun);
      this.running.delete(keyOf(a));
      ended();
      if (entry.killedByUs && !entry.overran) return; // vibe_kill (or a re-run) settled it already
      if (entry.overran) why = `[ran over ${Math.round(this.config.workerTimeoutMs / 1000)} s and was killed]`;
      sink.settle(entry.overran ? "failed" : state, `${out}${out && why ? "\n" : ""}${why}`);
    };
    void this.run(a, sink, entry, finish);
  }

  private async run(a: Assignment, sink: WorkerSink, entry: Running, finish: (state: "done" | "failed", out: string, why: string) => void): Promise<void> {
    let ep: AgentEndpoint;
    let workspaceRoot: string;
    try {
      // Per start, as for a tool call: a worker spawned before an enclosure started ran on the host;
      // its next attempt runs inside.
      ep = await this.placementOf(a.conversationId);
      // The workspace as the placement sees it (an enclosure's /workspace, not the host's folder).
      workspaceRoot = (await ep.client.health()).workspaceRoot;
    } catch (err) {
      finish("failed", "", `the worker could not start: ${(err as Error).message}`);
      return;
    }
    if (entry.killedByUs) {
      finish("failed", "", "");
      return;
    }
    sink.placed?.(ep.where);
    const command = this.config.commands[a.tier as VibeTier];
    // The agent enforces a limit of its own as well; ours (plus the kill grace) comes first, so the
    // report names the configured time. The stream's deadline is the last resort.
    const backstopMs = this.config.workerTimeoutMs + 2 * LIMITS.vibeKillGraceMs;
    let call: ClientDuplexStream<ExecRequest, ExecEvent>;
    try {
      call = ep.client.exec(backstopMs + 30_000);
    } catch (err) {
      // A client closed under us (its enclosure stopping) refuses new calls outright.
      finish("failed", "", `the worker could not start: ${(err as Error).message}`);
      return;
    }
    entry.call = call;
    let stdout = "";
    let stderr = "";
    let exit: ExecExit | undefined;
    let failure: EnclaveError | undefined;
    const decoders = { stdout: new StringDecoder("utf8"), stderr: new StringDecoder("utf8") };
    call.on("data", (ev: ExecEvent) => {
      const e = ev.event;
      if (e?.$case === "stdout") {
        const t = decoders.stdout.write(e.value);
        stdout = tail(stdout + t, LIMITS.vibeResultChars);
        if (t) sink.progress(t);
      } else if (e?.$case === "stderr") {
        const t = decoders.stderr.write(e.value);
        stderr = tail(stderr + t, LIMITS.vibeOutputTailChars);
        if (t) sink.progress(t);
      } else if (e?.$case === "exit") exit = e.value;
    });
    const settle = (): void => {
      const out = tail(stdout + decoders.stdout.end(), LIMITS.vibeResultChars).trim();
      const err = stderr.trim();
      if (!exit) {
        // Refused before it ran (no /bin/sh there, say), or the agent went away mid-run.
        const refused = failure && NOT_STARTED.has(failure.code);
        const reason = failure?.message ?? "its stream ended without an exit status";
        finish("failed", out, refused ? `the worker command could not start: ${reason}` : `[the worker's placement (${ep.where}) lost it: ${reason}]`);
      } else if (exit.timedOut) finish("failed", out, "[ran over the agent's time limit and was killed]");
      else if (exit.code === 0 && !exit.signal) finish("done", out, "");
      else finish("failed", out, `[${exit.signal ? `killed by ${exit.signal}` : `exit code ${exit.code}`}]${err ? `\nstderr:\n${err}` : ""}`);
    };
    call.on("error", (err: ServiceError) => {
      failure = ep.client.translate(err);
      settle();
    });
    call.on("end", settle);
    call.write({
      message: {
        $case: "start",
        value: {
          argv: ["/bin/sh", "-c", command],
          shellCommand: "",
          cwd: "",
          env: {
            ENCLAVE_CONVERSATION_ID: a.conversationId,
            ENCLAVE_WORKER_ID: a.workerId,
            ENCLAVE_WORKER_LABEL: a.label,
            ENCLAVE_WORKER_TIER: a.tier,
            ENCLAVE_WORKER_ATTEMPT: String(a.attempt),
            ENCLAVE_WORKSPACE: workspaceRoot,
          },
          timeoutMs: backstopMs,
        },
      },
    });
    const brief = Buffer.from(fullBrief(a), "utf8");
    for (let i = 0; i < brief.length; i += STDIN_CHUNK_BYTES) {
      call.write({ message: { $case: "stdin", value: brief.subarray(i, i + STDIN_CHUNK_BYTES) } });
    }
    call.write({ message: { $case: "closeStdin", value: true } });
  }

  async kill(a: Assignment): Promise<void> {
    const entry = this.running.get(keyOf(a));
    if (entry) await this.killAttempt(entry);
  }

  async killAll(): Promise<void> {
    await Promise.all([...this.running.values()].map((e) => this.killAttempt(e)));
  }

  /**
   * SIGTERM to the worker's process group in its placement, SIGKILL after a grace, and if even that
   * is not answered, the call is cancelled (the agent then kills the group itself). Resolves once the
   * attempt is over. An attempt still resolving its placement stops there.
   */
  private async killAttempt(entry: Running): Promise<void> {
    entry.killedByUs = true;
    const signal = (name: string): void => {
      try {
        entry.call?.write({ message: { $case: "signal", value: name } });
      } catch {
        // The stream has ended: the command is gone.
      }
    };
    const exited = entry.exited.then(() => true);
    signal("SIGTERM");
    if (await within(exited, LIMITS.vibeKillGraceMs, false)) return;
    signal("SIGKILL");
    if (await within(exited, LIMITS.vibeKillGraceMs, false)) return;
    entry.call?.cancel();
    await exited;
  }
}
