// One kernel process: spawned in its own process group with two extra pipes for frames (fd 3 out,
// fd 4 in), its raw stdout/stderr passed on as they come, frames released in order with that
// output (stream-sync.ts), and its end described (exit-fate.ts). Everything a kernel writes is
// bounded here: a frame line, the output held back for ordering, the frames waiting for markers.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import type { Readable, Writable } from "node:stream";
import { AgentError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { descendantsOf, groupMembers, killPids, killProcessTree, signalGroup } from "../process/process-tree.js";
import { describeExit, oomKillCount } from "./exit-fate.js";
import { type AgentFrame, asKernelFrame, type KernelFrame } from "./kernel-frames.js";
import type { KernelLanguage } from "./kernel-registry.js";
import { FrameReader, SyncScanner } from "./stream-sync.js";
import { within } from "@enclave/proto/wait.js";

export interface LaunchSpec {
  language: KernelLanguage;
  argv: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** Who hears a kernel's output and frames: the cell running now. */
export interface KernelListener {
  output(stream: "stdout" | "stderr", data: Buffer): void;
  frame(frame: KernelFrame): void;
  exit(fate: string): void;
}

const ID_PREFIX: Record<KernelLanguage, string> = { python: "py", javascript: "js" };

type Stream = "stdout" | "stderr";
/** What a stream has shown, in order: output, and the sync markers between it. */
type Segment = { data: Buffer } | { marker: number };
const STREAMS: readonly Stream[] = ["stdout", "stderr"];

export class KernelProcess {
  readonly id: string;
  readonly language: KernelLanguage;
  readonly startedAtMs = Date.now();
  interpreter = "";
  alive = true;
  /** Set once the process is gone: why, in words. */
  fate: string | undefined;
  /** Set once a cell has told its caller how the kernel ended. */
  fateReported = false;
  /** Cells run so far, for the `<cell N>` names in tracebacks. */
  cellCount = 0;
  readonly exited: Promise<string>;

  private readonly child: ChildProcess;
  private readonly scanners: Record<Stream, SyncScanner>;
  private readonly waiting: Array<{ frame: KernelFrame; bytes: number }> = [];
  private waitingBytes = 0;
  private readonly segments: Record<Stream, Segment[]> = { stdout: [], stderr: [] };
  /** Output bytes in segments (all of it held behind a marker once release() has run). */
  private readonly heldBytes: Record<Stream, number> = { stdout: 0, stderr: 0 };
  private listener: KernelListener | undefined;
  private stray: Array<{ stream: "stdout" | "stderr"; data: Buffer }> = [];
  private strayBytes = 0;
  private killedBy: string | undefined;
  private faulted = false;
  private readonly oomBefore = oomKillCount();
  /** The end of what the kernel printed on stderr before it was ready, for a failed start's error. */
  private stderrTail = "";
  private onReady: ((f: KernelFrame) => void) | undefined;

  private constructor(spec: LaunchSpec) {
    this.language = spec.language;
    this.id = `${ID_PREFIX[spec.language]}-${randomBytes(4).toString("hex")}`;
    const token = randomBytes(12).toString("hex");
    const prefix = SyncScanner.prefixFor(token);
    const scanner = (s: Stream): SyncScanner =>
      new SyncScanner(
        prefix,
        (data) => {
          this.segments[s].push({ data });
          this.heldBytes[s] += data.length;
        },
        (marker) => this.segments[s].push({ marker }),
      );
    this.scanners = { stdout: scanner("stdout"), stderr: scanner("stderr") };
    const [cmd, ...args] = spec.argv;
    this.child = spawn(cmd ?? "", args, {
      cwd: spec.cwd,
      env: { ...spec.env, ENCLAVE_KERNEL_TOKEN: token, ENCLAVE_KERNEL_FRAME_BYTES: String(LIMITS.kernelFrameLineBytes) },
      detached: true,
      stdio: ["ignore", "pipe", "pipe", "pipe", "pipe"],
    });
    const unreadable = (line: string): void => this.deliverOutput("stderr", Buffer.from(`[kernel sent an unreadable frame: ${line.slice(0, 200)}]\n`));
    const frames = new FrameReader<unknown>(
      (value, bytes) => {
        const frame = asKernelFrame(value);
        if (!frame) return unreadable(JSON.stringify(value) ?? "");
        this.waiting.push({ frame, bytes });
        this.waitingBytes += bytes;
        this.release();
      },
      unreadable,
      LIMITS.kernelFrameLineBytes,
      () =>
        this.kill(
          `Enclave killed it for breaking the frame protocol: it wrote more than ${mib(LIMITS.kernelFrameLineBytes)} on its frame pipe (fd 3) without a line end. ` +
            "Fds 3 and 4 carry the kernel runner's own frames: a cell must not write to them (print, or write to fds 1 and 2, instead)",
          { fault: true },
        ),
    );
    for (const s of STREAMS) {
      this.child[s]?.on("data", (d: Buffer) => {
        this.scanners[s].feed(d);
        this.release();
      });
      // Closed by the cell (os.close(1)): no marker will come on it again.
      this.child[s]?.on("end", () => {
        this.scanners[s].end();
        this.release();
      });
    }
    (this.child.stdio[3] as Readable | null)?.on("data", (d: Buffer) => frames.feed(d));
    (this.child.stdio[3] as Readable | null)?.on("error", () => undefined);
    (this.child.stdio[4] as Writable | null)?.on("error", () => undefined);

    this.exited = new Promise<string>((resolve) => {
      let facts: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      const finish = (): void => {
        if (!this.alive) return;
        this.alive = false;
        for (const s of STREAMS) this.scanners[s].end();
        this.release();
        // No frame will come for a marker left now: pass on whatever output is left, then the frames.
        for (const s of STREAMS) {
          for (const seg of this.segments[s].splice(0)) if ("data" in seg) this.deliverOutput(s, seg.data);
          this.heldBytes[s] = 0;
        }
        for (const f of this.waiting.splice(0)) this.dispatch(f.frame);
        this.waitingBytes = 0;
        this.fate = describeExit({ ...(facts ?? { code: null, signal: null }), killedBy: this.killedBy, oomBefore: this.oomBefore });
        this.listener?.exit(this.fate);
        resolve(this.fate);
      };
      this.child.on("error", (e: NodeJS.ErrnoException) => {
        this.killedBy = e.code === "ENOENT" ? `its interpreter \`${cmd}\` was not found` : `it could not start: ${e.message}`;
        facts = { code: null, signal: null };
        finish();
      });
      this.child.on("exit", (code, signal) => {
        facts = { code, signal };
        // Let the pipes drain, but do not wait on a grandchild that holds them open.
        const timer = setTimeout(finish, LIMITS.kernelExitDrainMs);
        this.child.once("close", () => {
          clearTimeout(timer);
          finish();
        });
      });
    });
  }

  /** Starts a kernel and waits for its runner to say it is ready. */
  static async start(spec: LaunchSpec): Promise<KernelProcess> {
    const k = new KernelProcess(spec);
    const ready = new Promise<KernelFrame>((resolve) => {
      k.onReady = resolve;
    });
    const timedOut = Symbol("timed out");
    const first = await within(Promise.race([ready, k.exited]), LIMITS.kernelStartTimeoutMs, timedOut);
    if (first === timedOut) {
      k.kill(`it did not become ready within ${LIMITS.kernelStartTimeoutMs} ms`);
      throw new AgentError("unavailable", `the ${spec.language} kernel did not start within ${LIMITS.kernelStartTimeoutMs} ms (${spec.argv.join(" ")})`);
    }
    if (typeof first === "string") {
      const tail = k.stderrTail.trim();
      throw new AgentError("unavailable", `the ${spec.language} kernel could not start: ${first}${tail ? `\n${tail.slice(-2000)}` : ""}`);
    }
    if (first.t === "ready") k.interpreter = first.interpreter;
    return k;
  }

  /** True when Enclave itself killed the kernel (reset, an interrupt it ignored, shutdown, a fault). */
  get killedByEnclave(): boolean {
    return this.killedBy !== undefined;
  }

  /** True when Enclave killed the kernel for something it did (not on request): its end must be told. */
  get killedForFault(): boolean {
    return this.faulted;
  }

  /** Whether the process has ended, even if its exit has not been processed yet (killed from outside
   * a moment ago): a zombie or a missing /proc entry is gone. */
  get gone(): boolean {
    if (!this.alive) return true;
    try {
      const stat = readFileSync(`/proc/${this.child.pid}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      return state === "Z" || state === "X";
    } catch {
      return existsSync("/proc/self/stat");
    }
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  attach(listener: KernelListener): void {
    this.listener = listener;
    const stray = this.stray;
    this.stray = [];
    this.strayBytes = 0;
    for (const s of stray) listener.output(s.stream, s.data);
  }

  /** A cell is attached (running or waiting on a bridge call). */
  get busy(): boolean {
    return this.listener !== undefined;
  }

  detach(): void {
    this.listener = undefined;
  }

  send(frame: AgentFrame): void {
    const pipe = this.child.stdio[4] as Writable | null;
    if (this.alive && pipe && !pipe.destroyed) pipe.write(`${JSON.stringify(frame)}\n`);
  }

  /** A signal to the kernel and everything it started (its process group). */
  signal(sig: NodeJS.Signals): void {
    if (this.alive) signalGroup(this.child.pid, sig);
  }

  /**
   * Kills whatever an interrupted cell left running in the kernel's process group (stray forks, a
   * fork bomb), keeping the kernel itself. The group is stopped first so nothing forks mid-sweep.
   */
  reapStrays(): number {
    const pgid = this.child.pid;
    if (!this.alive || !pgid) return 0;
    let reaped = 0;
    this.signal("SIGSTOP");
    try {
      for (let sweep = 0; sweep < 5; sweep++) {
        // The group's members, and what a cell started that made a group of its own.
        const strays = [...new Set([...groupMembers(pgid), ...descendantsOf(pgid)])].filter((pid) => pid !== pgid);
        if (strays.length === 0) break;
        reaped += killPids(strays);
      }
    } finally {
      this.signal("SIGCONT");
    }
    return reaped;
  }

  /** fault: the kernel is killed for something it did, which the next cell must hear about. */
  kill(reason: string, opts: { fault?: boolean } = {}): void {
    if (!this.alive) return;
    if (this.killedBy === undefined) {
      this.killedBy = reason;
      this.faulted = opts.fault ?? false;
    }
    killProcessTree(this.child.pid);
  }

  private deliverOutput(stream: "stdout" | "stderr", data: Buffer): void {
    if (!this.onReady && this.listener) {
      this.listener.output(stream, data);
      return;
    }
    if (this.onReady && stream === "stderr") this.stderrTail = (this.stderrTail + data.toString("utf8")).slice(-LIMITS.kernelStartStderrChars);
    // Printed between cells (a thread, a timer): kept, bounded, for the next cell.
    if (this.strayBytes >= LIMITS.kernelStrayOutputBytes) return;
    const part = data.subarray(0, LIMITS.kernelStrayOutputBytes - this.strayBytes);
    if (this.stray.length === 0) this.stray.push({ stream, data: Buffer.from("[printed by the kernel between cells]\n") });
    this.stray.push({ stream, data: Buffer.from(part) });
    this.strayBytes += part.length;
  }

  /**
   * Passes output on up to each stream's next marker, and releases the next frame once both streams
   * have reached its marker (or ended): output printed before a frame comes before it, output
   * printed after it waits for it.
   */
  private release(): void {
    for (;;) {
      for (const s of STREAMS) {
        const q = this.segments[s];
        while (q.length && "data" in (q[0] as Segment)) {
          const { data } = q.shift() as { data: Buffer };
          this.heldBytes[s] -= data.length;
          this.deliverOutput(s, data);
        }
      }
      // A marker whose frame is late or never comes must not hold output back without bound: past the
      // limit the marker goes, and its frame (if it comes) is put in order by the stream's other markers.
      let dropped = false;
      for (const s of STREAMS) {
        if (this.heldBytes[s] > LIMITS.kernelSyncHoldBytes && this.segments[s].length) {
          this.segments[s].shift();
          dropped = true;
        }
      }
      if (dropped) continue;
      const first = this.waiting[0];
      if (!first) return;
      const f = first.frame;
      // A marker whose frame never came (the runner failed between the two) must not block the rest.
      let stale = false;
      for (const s of STREAMS) {
        const head = this.segments[s][0];
        if (head && "marker" in head && head.marker < f.seq) {
          this.segments[s].shift();
          stale = true;
        }
      }
      if (stale) continue;
      // Reached: the stream's next marker is this frame's or a later one; or the stream shows nothing
      // now and has been past it already (its marker dropped above) or has ended. Frames held past
      // their limit are released as they are (one frame, however large, may wait).
      const reached =
        (this.waiting.length > 1 && this.waitingBytes > LIMITS.kernelFrameHoldBytes) ||
        STREAMS.every((s) => {
          const next = this.segments[s][0];
          return next ? "marker" in next && next.marker >= f.seq : this.scanners[s].reached >= f.seq;
        });
      if (!reached) return;
      this.waiting.shift();
      this.waitingBytes -= first.bytes;
      for (const s of STREAMS) {
        const head = this.segments[s][0];
        if (head && "marker" in head && head.marker === f.seq) this.segments[s].shift();
      }
      this.dispatch(f);
    }
  }

  private dispatch(f: KernelFrame): void {
    if (f.t === "ready" && this.onReady) {
      const ready = this.onReady;
      this.onReady = undefined;
      this.stray = [];
      this.strayBytes = 0;
      ready(f);
    } else if (this.listener) {
      this.listener.frame(f);
    } else if (f.t === "call") {
      // A thread left running after its cell: there is no stream to carry the call.
      this.send({
        t: "reply",
        id: f.id,
        ok: false,
        code: "failed_precondition",
        text: "no cell is running: tool() works only while a cell runs, not from work left behind by a finished cell",
      });
    }
  }
}

function mib(bytes: number): string {
  return `${Math.round(bytes / 1024 ** 2)} MiB`;
}
