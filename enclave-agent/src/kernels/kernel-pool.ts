// The kernel pool: one kernel per language for this agent's workspace (so per conversation),
// started on first use, replaced after it dies, discarded on reset. Cells of one language run one at
// a time, in the order they came.
import type { EvalDone, EvalStart, KernelInfo, KernelStatus } from "@enclave/proto/gen/enclave/agent/v1/kernel.js";
import { AgentError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { type CellSink, CellRun } from "./cell-run.js";
import { launchSpec } from "./kernel-launch.js";
import { KernelProcess } from "./kernel-process.js";
import { isKernelLanguage, type KernelLanguage } from "./kernel-registry.js";

/** What the caller can do to a cell it submitted, before or while it runs. */
export class CellHandle {
  private run: CellRun | undefined;
  private interruptReason: string | undefined;

  bind(run: CellRun): void {
    this.run = run;
    if (this.interruptReason) run.interrupt(this.interruptReason);
  }

  get interrupted(): string | undefined {
    return this.interruptReason;
  }

  reply(...args: Parameters<CellRun["reply"]>): void {
    this.run?.reply(...args);
  }

  interrupt(reason: string): void {
    this.interruptReason ??= reason;
    this.run?.interrupt(reason);
  }
}

export interface EvalSink extends CellSink {
  kernel(info: KernelInfo): void;
}

export class KernelPool {
  private readonly kernels = new Map<KernelLanguage, KernelProcess>();
  /** Why a kernel died between cells, until a cell has said so. */
  private readonly unreported = new Map<KernelLanguage, string>();
  private readonly queues = new Map<KernelLanguage, Promise<unknown>>();
  /** Kernels started ahead of their first cell (warm), until they are ready or have failed. */
  private readonly starting = new Map<KernelLanguage, Promise<KernelProcess>>();
  /** Kernels started ahead that no cell has used yet, with the interpreter they were started with. */
  private readonly ahead = new Map<KernelProcess, string>();
  private closed = false;

  constructor(
    private readonly workspaceRoot: string,
    /** The kernel runners, beside the agent bundle. */
    private readonly kernelDir: string,
    /** The state folder's kernels/ folder: where kernel environments are made. */
    private readonly kernelsStateDir: string,
  ) {}

  /** The kernels alive now. */
  list(): KernelStatus[] {
    return [...this.kernels.values()].filter((k) => k.alive).map((k) => ({ info: kernelInfo(k), cells: k.cellCount, busy: k.busy }));
  }

  /**
   * Kills the kernel with this id (an operator's stop), or the language's when `kernelId` names a
   * language; the next cell of its language starts a fresh kernel and is told `reason` (a predicate:
   * "was stopped by …"). A cell
   * running in it ends as a kernel death does. NOT_FOUND when no such kernel is alive.
   */
  async stop(kernelId: string, reason: string): Promise<KernelInfo> {
    const found = [...this.kernels.entries()].find(([language, k]) => k.alive && (k.id === kernelId || language === kernelId));
    if (!found) throw new AgentError("not_found", `no kernel \`${kernelId.slice(0, 80)}\` is alive in this agent`);
    const [language, kernel] = found;
    const info = kernelInfo(kernel);
    const busy = kernel.busy;
    // A fault, so the next cell hears of it; a cell running now hears of it as its kernel's death.
    kernel.kill(`it ${reason}`, { fault: true });
    await kernel.exited;
    // The exit handler words it as a death; an operator's stop is said as such.
    if (!busy && this.unreported.has(language)) this.unreported.set(language, `the previous ${language} kernel (${kernel.id}) ${reason}`);
    return info;
  }

  /**
   * Starts the language's kernel now, ahead of its first cell: the agent was started for a cell, and
   * the kernel's own start-up then runs while the rest of the agent loads. A failure is left for
   * that cell, whose start tries again and reports it.
   */
  warm(language: KernelLanguage, opts: { spare?: boolean } = {}): void {
    if (this.closed || this.kernels.has(language) || this.starting.has(language)) return;
    const started = this.startKernel(language, { ahead: true, spare: opts.spare }).finally(() => this.starting.delete(language));
    started.catch(() => undefined);
    this.starting.set(language, started);
  }

  /** Runs one cell, after the cells of its language already waiting. */
  eval(start: EvalStart, sink: EvalSink, handle: CellHandle): Promise<EvalDone> {
    if (!isKernelLanguage(start.language)) {
      throw new AgentError("invalid_argument", `language \`${start.language}\` is not one of python, javascript`);
    }
    if (Buffer.byteLength(start.code) > LIMITS.kernelMaxCodeBytes) {
      throw new AgentError("too_large", `the cell is over ${LIMITS.kernelMaxCodeBytes} bytes`);
    }
    const language = start.language;
    // idle_timeout_ms keeps its wire name for compatibility; it is this run budget.
    const budgetMs = Math.min(start.idleTimeoutMs > 0 ? start.idleTimeoutMs : LIMITS.kernelRunBudgetMs, LIMITS.kernelMaxRunBudgetMs);
    const previous = this.queues.get(language) ?? Promise.resolve();
    const mine = previous.catch(() => undefined).then(() => this.runCell(language, start, budgetMs, sink, handle));
    this.queues.set(language, mine);
    return mine;
  }

  private async runCell(language: KernelLanguage, start: EvalStart, budgetMs: number, sink: EvalSink, handle: CellHandle): Promise<EvalDone> {
    if (handle.interrupted) return notRun(`${handle.interrupted} before the cell started`);
    if (this.closed) throw new AgentError("stopping", "the agent is shutting down");
    let kernel = this.kernels.get(language);
    if (start.reset && kernel) {
      kernel.kill("it was reset on request");
      await kernel.exited;
      this.unreported.delete(language);
      kernel = undefined;
    }
    if (kernel?.gone) {
      // Killed a moment ago, its exit not processed yet: let it be recorded as a death between cells.
      await kernel.exited;
      await new Promise((r) => setImmediate(r));
      kernel = this.kernels.get(language);
    }
    let fresh = false;
    if (!kernel?.alive) {
      const warming = this.starting.get(language);
      kernel = warming ? await warming.catch(() => undefined) : undefined;
      fresh = true;
    }
    // A kernel started ahead is this cell's (its first use), ready or not.
    if (kernel && this.ahead.has(kernel)) fresh = true;
    if (kernel && !(await this.stillChosen(kernel))) {
      kernel.kill("its interpreter is no longer the one a kernel would start with");
      await kernel.exited;
      kernel = undefined;
    }
    if (!kernel?.alive) {
      kernel = await this.startKernel(language);
      fresh = true;
    }
    const previousFate = fresh ? (this.unreported.get(language) ?? "") : "";
    this.unreported.delete(language);
    sink.kernel({ ...kernelInfo(kernel), previousFate, fresh });
    if (start.code.trim() === "") {
      return {
        status: "ok",
        errorName: "",
        errorValue: "",
        traceback: "",
        detail: "",
        durationMs: 0,
        budgetUsedMs: 0,
        outputTruncated: false,
        stateLost: false,
        budgetExpired: false,
      };
    }
    const run = new CellRun(kernel, start.code, budgetMs, sink);
    handle.bind(run);
    const done = await run.start();
    if (done.stateLost) this.kernels.delete(language);
    return done;
  }

  /**
   * Whether a kernel started ahead of its first cell still runs what a start now would: it may have
   * been started over an empty workspace (a spare agent) that has since been given a project
   * environment (.venv/), which the cell must run in. Asked once, at its first cell.
   */
  private async stillChosen(kernel: KernelProcess): Promise<boolean> {
    const interpreter = this.ahead.get(kernel);
    if (interpreter === undefined) return true;
    this.ahead.delete(kernel);
    try {
      const now = await launchSpec(kernel.language, this.workspaceRoot, this.kernelDir, this.kernelsStateDir);
      return now.argv[0] === interpreter;
    } catch {
      // The fresh start reports what is wrong.
      return false;
    }
  }

  /** ahead: started before its first cell (warm); spare: by an agent started before its conversation was known. */
  private async startKernel(language: KernelLanguage, opts: { ahead?: boolean; spare?: boolean } = {}): Promise<KernelProcess> {
    const spec = await launchSpec(language, this.workspaceRoot, this.kernelDir, this.kernelsStateDir, opts.spare);
    const kernel = await KernelProcess.start(spec);
    if (opts.ahead) this.ahead.set(kernel, spec.argv[0] ?? "");
    this.kernels.set(language, kernel);
    void kernel.exited.then((fate) => {
      this.ahead.delete(kernel);
      if (this.kernels.get(language) !== kernel) return;
      this.kernels.delete(language);
      if (!kernel.fateReported && (!kernel.killedByEnclave || kernel.killedForFault))
        this.unreported.set(language, `the previous ${language} kernel (${kernel.id}) died between cells: ${fate}`);
    });
    return kernel;
  }

  /** Kills every kernel (the agent is stopping); their environments go with the state folder. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.starting.values()].map((p) => p.catch(() => undefined)));
    const all = [...this.kernels.values()];
    for (const k of all) k.kill("the agent stopped");
    await Promise.all(all.map((k) => k.exited));
  }
}

function notRun(detail: string): EvalDone {
  return {
    status: "interrupted",
    errorName: "",
    errorValue: "",
    traceback: "",
    detail,
    durationMs: 0,
    budgetUsedMs: 0,
    outputTruncated: false,
    stateLost: false,
    budgetExpired: false,
  };
}

function kernelInfo(k: KernelProcess): KernelInfo {
  return { kernelId: k.id, language: k.language, pid: k.pid, interpreter: k.interpreter, startMs: k.startedAtMs, previousFate: "", fresh: false };
}
