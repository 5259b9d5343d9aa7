// One cell on one kernel: sends it, passes output, displays and bridge calls to the caller as they
// come, keeps the idle budget (suspended while bridge calls are pending), and escalates on expiry or
// cancellation: SIGINT first (the cell ends with KeyboardInterrupt, the kernel lives on), then,
// after a grace period, SIGKILL (the kernel and its state are gone, which the result says).
// A bridge call is taken only from the cell itself (the runner tags each call with the cell that
// started the work making it), and only up to the per-cell limit.
import type { BridgeCall, BridgeReply, DisplayData, EvalDone } from "@enclave/proto/gen/enclave/agent/v1/kernel.js";
import { LIMITS } from "../limits.js";
import { RunBudget } from "./run-budget.js";
import type { KernelFrame, MimeFrameItem } from "./kernel-frames.js";
import type { KernelListener, KernelProcess } from "./kernel-process.js";

export interface CellSink {
  output(stream: "stdout" | "stderr", data: Buffer): void;
  display(display: DisplayData): void;
  bridgeCall(call: BridgeCall): void;
}

const STATE_LOST = "Its state (variables, imports, loaded data) was lost; the next cell starts a fresh kernel.";

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** "c3" (the runner's id for the third cell) as "cell 3". */
function cellName(id: string): string {
  const n = /^c(\d+)$/.exec(id)?.[1];
  return n ? `cell ${n}` : `cell \`${id.slice(0, 40)}\``;
}

/** Where a call tagged with another cell's id (or with none) came from, in words. */
function workOf(tag: string): string {
  return tag
    ? `work that ${cellName(tag)} left running (a thread, a timer, a task)`
    : "a thread Enclave cannot tie to a cell (one not started through threading)";
}

function mimeItems(items: MimeFrameItem[]): DisplayData["items"] {
  return items.map((i) => ({ mimeType: i.mime, data: i.b64 !== undefined ? Buffer.from(i.b64, "base64") : Buffer.from(i.text ?? "", "utf8") }));
}

export class CellRun implements KernelListener {
  private readonly budget: RunBudget;
  private readonly pendingCalls = new Set<string>();
  private bridgeCalls = 0;
  /** The id the runner knows this cell by (set when it is sent). */
  private cellId = "";
  private readonly startedAt = Date.now();
  private outputBytes = 0;
  private displayBytes = 0;
  private truncated = false;
  private stopReason: string | undefined;
  private budgetExpired = false;
  private graceTimer: NodeJS.Timeout | undefined;
  private finished = false;
  private resolveDone!: (done: EvalDone) => void;
  readonly done: Promise<EvalDone>;

  constructor(
    private readonly kernel: KernelProcess,
    private readonly code: string,
    budgetMs: number,
    private readonly sink: CellSink,
  ) {
    this.budget = new RunBudget(budgetMs, () => {
      this.budgetExpired = true;
      this.interrupt(`the cell used its idle budget of ${seconds(budgetMs)} (bridge calls not counted)`);
    });
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
  }

  start(): Promise<EvalDone> {
    this.kernel.attach(this);
    this.kernel.cellCount += 1;
    this.cellId = `c${this.kernel.cellCount}`;
    this.kernel.send({ t: "execute", id: this.cellId, code: this.code, cell: this.kernel.cellCount });
    this.budget.resume();
    if (!this.kernel.alive) this.exit(this.kernel.fate ?? "it is gone");
    return this.done;
  }

  /** Interrupts the cell: SIGINT now, SIGKILL if it does not end within the grace period. */
  interrupt(reason: string): void {
    if (this.finished || this.stopReason) return;
    this.stopReason = reason;
    this.budget.stop();
    this.kernel.signal("SIGINT");
    this.graceTimer = setTimeout(() => {
      this.kernel.kill(`${reason}, and it did not stop within ${seconds(LIMITS.kernelInterruptGraceMs)} of the interrupt, so it was killed`);
    }, LIMITS.kernelInterruptGraceMs);
  }

  reply(r: BridgeReply): void {
    if (this.finished || !this.pendingCalls.delete(r.callId)) return;
    this.kernel.send({ t: "reply", id: r.callId, ok: !r.isError, code: r.errorCode, text: r.text });
    if (this.pendingCalls.size === 0 && !this.stopReason) this.budget.resume();
  }

  output(stream: "stdout" | "stderr", data: Buffer): void {
    if (this.finished) return;
    const room = LIMITS.kernelCellOutputBytes - this.outputBytes;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    const part = data.length > room ? data.subarray(0, room) : data;
    if (part.length < data.length) this.truncated = true;
    this.outputBytes += part.length;
    this.sink.output(stream, part);
  }

  frame(f: KernelFrame): void {
    if (this.finished) return;
    if (f.t === "display") {
      // Measured before anything is decoded: a display past the cap costs nothing more.
      const size = f.items.reduce((n, i) => n + (i.b64 !== undefined ? Buffer.byteLength(i.b64, "base64") : Buffer.byteLength(i.text ?? "", "utf8")), 0);
      if (this.displayBytes + size > LIMITS.kernelCellDisplayBytes) {
        this.truncated = true;
        return;
      }
      this.displayBytes += size;
      this.sink.display({ items: mimeItems(f.items), echo: f.echo });
    } else if (f.t === "call") {
      const refusal = this.refusal(f);
      if (refusal) {
        // Answered here: the call never reaches the control plane, and the budget keeps running.
        this.kernel.send({ t: "reply", id: f.id, ok: false, ...refusal });
        return;
      }
      this.bridgeCalls += 1;
      if (this.pendingCalls.size === 0) this.budget.pause();
      this.pendingCalls.add(f.id);
      this.sink.bridgeCall({ callId: f.id, tool: f.tool, argumentsJson: f.args });
    } else if (f.t === "done") {
      const interrupted = this.stopReason !== undefined && f.status === "error";
      // An interrupted cell's children (a fork bomb, a stray server) go with it; the kernel stays.
      if (this.stopReason !== undefined) this.kernel.reapStrays();
      this.finish({
        status: interrupted ? "interrupted" : f.status,
        errorName: f.ename,
        errorValue: f.evalue,
        traceback: f.traceback,
        detail: interrupted ? `${this.stopReason}: it was interrupted and its output so far is kept. The kernel and its state are kept.` : "",
        stateLost: false,
      });
    }
  }

  /** Why a bridge call is not taken, or undefined when it is. */
  private refusal(f: Extract<KernelFrame, { t: "call" }>): { code: string; text: string } | undefined {
    if (f.cell !== this.cellId) {
      return {
        code: "failed_precondition",
        text:
          `tool() was called by ${workOf(f.cell)} while ${cellName(this.cellId)} runs: ` +
          "a bridge call belongs to the cell that started the work making it, and is refused once that cell has ended. Call tool() from the cell that needs it.",
      };
    }
    if (this.bridgeCalls >= LIMITS.bridgeCallsPerCell) {
      return {
        code: "bridge_limit",
        text:
          `this cell has made ${LIMITS.bridgeCallsPerCell} bridge calls, the most one cell may make, so further tool() calls fail. ` +
          "Batch the work into fewer calls (one exec or one read covering many items), or continue in a new cell.",
      };
    }
    return undefined;
  }

  exit(fate: string): void {
    if (this.finished) return;
    const killed = this.stopReason !== undefined && this.kernel.killedByEnclave;
    this.kernel.fateReported = true;
    this.finish({
      status: killed ? "killed" : "died",
      errorName: "",
      errorValue: "",
      traceback: "",
      detail: killed
        ? `The ${this.kernel.language} kernel (${this.kernel.id}) was killed: ${fate}. ${STATE_LOST}`
        : `The ${this.kernel.language} kernel (${this.kernel.id}) died during the cell: ${fate}. ${STATE_LOST}`,
      stateLost: true,
    });
  }

  private finish(d: Pick<EvalDone, "status" | "errorName" | "errorValue" | "traceback" | "detail" | "stateLost">): void {
    if (this.finished) return;
    this.finished = true;
    this.budget.stop();
    clearTimeout(this.graceTimer);
    this.kernel.detach();
    this.resolveDone({
      ...d,
      durationMs: Date.now() - this.startedAt,
      budgetUsedMs: Math.round(this.budget.used),
      outputTruncated: this.truncated,
      budgetExpired: this.budgetExpired,
    });
  }
}
