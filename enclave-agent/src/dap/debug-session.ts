// One debug session: an adapter process (or a loopback connection for attach), the DAP start sequence
// in the robust parallel order, the program's state as its events tell it (stopped where, running,
// exited with what), its output, and the references handed out since the last resume. The agent owns
// the DAP: its requests and bodies stay on this side, and the supervisor answers the control plane
// in the Debug service's own messages.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import type { Socket } from "node:net";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { type DebugBreakpoint, DebugEndKind, type DebugException, type DebugFrame, type DebugStopped } from "@enclave/proto/gen/enclave/agent/v1/debug.js";
import { AgentError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { killProcessTree } from "../process/process-tree.js";
import type { DebugAdapterSpec } from "@enclave/proto/adapter-registry.js";
import { type AdapterProcess, connectToPort, startAdapter } from "./adapter-process.js";
import { DapClosedError, type DapConnection, DapRequestError, DapTimeoutError } from "./dap-connection.js";
import { OutputBuffer } from "./output-buffer.js";
import { within } from "@enclave/proto/wait.js";

export type SessionState = "starting" | "running" | "stopped" | "exited" | "terminated";
export type ResumeAction = "continue" | "next" | "stepIn" | "stepOut";
/** Which exceptions stop the program: uncaught ones (the default), every raise, or none. */
export type ExceptionMode = "uncaught" | "raised" | "none";
export const EXCEPTION_MODES: readonly ExceptionMode[] = ["uncaught", "raised", "none"];

export interface LaunchOptions {
  /** Text for the program's stdin (then end-of-file); undefined: not connected. */
  stdin?: string;
  exceptions: ExceptionMode;
  /** Where runInTerminal children's output goes: to `output`, or nowhere (the adapter sends it as events). */
  terminalOutput: "capture" | "ignore";
  /** Files made for the session (a stdin file), removed when it ends. */
  cleanup: string[];
}

/** Exception filters of an adapter, picked for a mode by what they say they catch. */
export function exceptionFilters(available: readonly DebugProtocol.ExceptionBreakpointsFilter[], mode: ExceptionMode): string[] {
  if (mode === "none") return [];
  const uncaught = available.filter((f) => /uncaught|unhandled/i.test(`${f.filter} ${f.label}`) && !/user/i.test(f.filter));
  const raised = mode === "raised" ? available.filter((f) => /raised|throw|all/i.test(`${f.filter} ${f.label}`)) : [];
  return [...new Set([...uncaught, ...raised].map((f) => f.filter))];
}

/** Frames of the debugger or its launcher, never the program's own. */
const LAUNCHER_FRAME = /[\\/](debugpy|pydevd[^\\/]*|_pydev[^\\/]*)[\\/]|[\\/]runpy\.py$|^<frozen runpy>$/;

export interface SessionInfo {
  key: string;
  spec: DebugAdapterSpec;
  /** For messages: workspace-relative program, or 127.0.0.1:PORT. */
  program: string;
  interpreter?: string;
  ttlMs: number;
  /** Makes an absolute path workspace-relative when it is inside the workspace. */
  relativize(path: string): string;
}

export interface Breakpoints {
  /** Absolute path → requested lines. */
  files: Map<string, number[]>;
  /** Absolute path → what the adapter answered. */
  results: Map<string, DebugBreakpoint[]>;
}

const DELVE_EXIT = /Process \d+ has exited with status (-?\d+)/;

export class DebugSession {
  readonly id = `s-${randomBytes(4).toString("hex")}`;
  readonly startedAtMs = Date.now();
  readonly expiresAtMs: number;
  readonly output = new OutputBuffer(LIMITS.debugOutputBufferBytes);
  state: SessionState = "starting";
  stopped: DebugStopped | undefined;
  exitCode: number | undefined;
  /** Why the session ended, for code to branch on; its words are endedReason. */
  endedKind = DebugEndKind.DEBUG_END_KIND_UNSPECIFIED;
  private endWords = "";
  readonly notes: string[] = [];
  private connection: DapConnection | undefined;
  private adapter: AdapterProcess | undefined;
  private socket: Socket | undefined;
  private capabilities: DebugProtocol.Capabilities = {};
  private readonly terminalChildren: ChildProcess[] = [];
  /** Bumped at every resume: references from an older epoch are dead. */
  private epoch = 0;
  private stopCount = 0;
  private readonly frames = new Map<number, number>();
  private readonly references = new Map<number, number>();
  private readonly waiters = new Set<() => void>();
  private ending: Promise<void> | undefined;
  /** The binary the adapter built for this session (delve), removed when the session ends. */
  private builtBinary: string | undefined;
  /** Set while stopped on an exception. */
  exception: DebugException | undefined;
  private options: LaunchOptions = { exceptions: "uncaught", terminalOutput: "capture", cleanup: [] };

  constructor(readonly info: SessionInfo) {
    this.expiresAtMs = this.startedAtMs + info.ttlMs;
  }

  /** Processes started for the adapter's runInTerminal requests. */
  get terminalProcesses(): number {
    return this.terminalChildren.length;
  }

  get active(): boolean {
    return this.state === "starting" || this.state === "running" || this.state === "stopped";
  }

  // ---- start ---------------------------------------------------------------------------------

  async launch(
    argv: string[],
    cwd: string,
    env: NodeJS.ProcessEnv,
    launchArgs: Record<string, unknown>,
    breakpoints: Breakpoints,
    waitMs: number,
    options: LaunchOptions,
  ): Promise<void> {
    this.options = options;
    if (typeof launchArgs.output === "string") this.builtBinary = launchArgs.output;
    const tcpStdin = this.info.spec.transport === "tcp" ? (options.stdin ?? "") : "";
    this.adapter = await startAdapter(this.info.spec, argv, cwd, env, (_stream, text) => this.output.append(text), tcpStdin).catch(async (err: unknown) => {
      await this.end(`the adapter did not start: ${(err as Error).message}`, true, DebugEndKind.DEBUG_END_KIND_START_FAILED);
      throw err;
    });
    await this.begin(this.adapter.connection, "launch", launchArgs, breakpoints, waitMs);
  }

  /** Starts the adapter (lldb) and has it attach to a running process. */
  async attachProcess(
    argv: string[],
    cwd: string,
    env: NodeJS.ProcessEnv,
    attachArgs: Record<string, unknown>,
    breakpoints: Breakpoints,
    waitMs: number,
    exceptions: ExceptionMode,
  ): Promise<void> {
    this.options = { ...this.options, exceptions };
    this.adapter = await startAdapter(this.info.spec, argv, cwd, env, (_stream, text) => this.output.append(text), "").catch(async (err: unknown) => {
      await this.end(`the adapter did not start: ${(err as Error).message}`, true, DebugEndKind.DEBUG_END_KIND_START_FAILED);
      throw err;
    });
    await this.begin(this.adapter.connection, "attach", attachArgs, breakpoints, waitMs);
  }

  async attach(port: number, attachArgs: Record<string, unknown>, breakpoints: Breakpoints, waitMs: number, exceptions: ExceptionMode): Promise<void> {
    this.options = { ...this.options, exceptions };
    const { connection, socket } = await connectToPort(port).catch(async (err: unknown) => {
      await this.end(`attach failed: ${(err as Error).message}`, true, DebugEndKind.DEBUG_END_KIND_START_FAILED);
      throw err;
    });
    this.socket = socket;
    await this.begin(connection, "attach", attachArgs, breakpoints, waitMs);
  }

  /**
   * The order adapters accept: initialize (awaited); launch/attach sent *without* awaiting (many
   * adapters answer it only after configurationDone); wait for `initialized` (before or after the
   * launch response, adapters differ); breakpoints; configurationDone; only then the launch
   * response; then wait for the first stop.
   */
  private async begin(conn: DapConnection, request: "launch" | "attach", args: Record<string, unknown>, bps: Breakpoints, waitMs: number): Promise<void> {
    this.connection = conn;
    conn.onEvent((e) => this.onEvent(e));
    conn.handleReverse("runInTerminal", (a) => this.runInTerminal(a as DebugProtocol.RunInTerminalRequestArguments));
    conn.handleReverse("startDebugging", async (a) => {
      const cfg = (a as DebugProtocol.StartDebuggingRequestArguments | undefined)?.configuration ?? {};
      this.notes.push(
        `the adapter asked to start a child session (${JSON.stringify(cfg).slice(0, 200)}); Enclave drives one session per conversation, so it was declined`,
      );
      throw new Error("Enclave drives one debug session per conversation; child sessions are not started");
    });
    void conn.whenClosed().then((why) => {
      if (this.active) void this.end(`the adapter connection closed: ${why}`, false, DebugEndKind.DEBUG_END_KIND_ADAPTER_CLOSED);
    });
    try {
      const init = await conn.request<DebugProtocol.InitializeResponse>(
        "initialize",
        {
          clientID: "enclave",
          clientName: "Enclave",
          adapterID: this.info.spec.id,
          locale: "en",
          linesStartAt1: true,
          columnsStartAt1: true,
          pathFormat: "path",
          supportsVariableType: true,
          supportsRunInTerminalRequest: true,
          supportsStartDebuggingRequest: false,
          supportsProgressReporting: false,
          supportsInvalidatedEvent: false,
        } satisfies DebugProtocol.InitializeRequestArguments,
        LIMITS.debugRequestTimeoutMs,
      );
      this.capabilities = init.body ?? {};
      const initialized = conn.waitForEvent((e) => e.event === "initialized", LIMITS.debugLaunchTimeoutMs);
      const started = conn.request(request, args, LIMITS.debugLaunchTimeoutMs);
      started.catch(() => undefined); // awaited below; never left unhandled if we bail out first
      // A launch that fails before `initialized` must not leave us waiting for it.
      const failedEarly = started.then(
        () => new Promise<never>(() => undefined),
        (err: unknown) => Promise.reject(err),
      );
      // A later failure is seen by `await started` below; this copy must not go unhandled.
      failedEarly.catch(() => undefined);
      const init2 = await Promise.race([initialized, failedEarly]);
      if (!init2) throw new AgentError("failed_precondition", `the ${this.info.spec.id} adapter never sent \`initialized\` after ${request}`);
      for (const [file, lines] of bps.files) {
        bps.results.set(file, await this.sendBreakpoints(file, lines));
      }
      await this.sendExceptionBreakpoints(conn);
      if (this.capabilities.supportsConfigurationDoneRequest) await conn.request("configurationDone", {}, LIMITS.debugRequestTimeoutMs);
      await started;
      if (this.state === "starting") this.state = "running";
    } catch (err) {
      // A program that ran to its end before the launch response is a finished session, not a failure.
      if (!this.active && this.endedKind === DebugEndKind.DEBUG_END_KIND_PROGRAM_ENDED) return;
      await this.end(`${request} failed: ${this.describeError(err)}`, true, DebugEndKind.DEBUG_END_KIND_START_FAILED);
      throw new AgentError("failed_precondition", `the ${this.info.spec.id} adapter could not ${request} ${this.info.program}: ${this.describeError(err)}`);
    }
    await this.waitForStop(0, waitMs);
  }

  /**
   * Exception breakpoints from the filters the adapter offers (debugpy: uncaught, raised; lldb: C++
   * throw …). Without any, nothing is sent: delve stops on a panic, lldb on a crashing signal, by
   * themselves.
   */
  private async sendExceptionBreakpoints(conn: DapConnection): Promise<void> {
    const available = this.capabilities.exceptionBreakpointFilters ?? [];
    if (available.length === 0) {
      if (this.options.exceptions === "raised")
        this.notes.push(
          `the ${this.info.spec.id} adapter offers no exception filters: it stops only where the program would die (an uncaught exception, a panic, a crashing signal)`,
        );
      return;
    }
    const filters = exceptionFilters(available, this.options.exceptions);
    try {
      await conn.request("setExceptionBreakpoints", { filters } satisfies DebugProtocol.SetExceptionBreakpointsArguments, LIMITS.debugRequestTimeoutMs);
    } catch (err) {
      this.notes.push(`exception breakpoints (${filters.join(", ") || "none"}) were refused: ${this.describeError(err)}`);
    }
  }

  // ---- events --------------------------------------------------------------------------------

  private onEvent(e: DebugProtocol.Event): void {
    switch (e.event) {
      case "output": {
        const body = (e as DebugProtocol.OutputEvent).body;
        if (body.category === "stdout" || body.category === "stderr") this.output.append(body.output);
        else if (body.category === "console" || body.category === undefined) {
          const m = DELVE_EXIT.exec(body.output);
          if (m) this.exitCode = Number(m[1]);
        }
        break;
      }
      case "stopped": {
        const body = (e as DebugProtocol.StoppedEvent).body;
        this.epoch++;
        this.state = "stopped";
        this.exception = undefined;
        this.stopped = {
          reason: body.reason,
          threadId: body.threadId ?? 0,
          file: "",
          line: 0,
          function: "",
          description: body.description ?? "",
          text: body.text ?? "",
        };
        void this.locate(this.stopped).finally(() => {
          this.stopCount++;
          this.notify();
        });
        break;
      }
      case "continued":
        this.markRunning();
        break;
      case "exited":
        this.exitCode = (e as DebugProtocol.ExitedEvent).body.exitCode;
        break;
      case "terminated":
        void this.end("", false, DebugEndKind.DEBUG_END_KIND_PROGRAM_ENDED);
        break;
      default:
        break;
    }
  }

  /**
   * Fills the stop's file, line and function from the top frame of the stopped thread; on an
   * exception, from the innermost frame of the program's own (delve's top frame is the runtime's
   * panic), and reads the exception.
   */
  private async locate(stop: DebugStopped): Promise<void> {
    if (!this.connection || !stop.threadId) return;
    const exception = stop.reason === "exception";
    try {
      const r = await this.connection.request<DebugProtocol.StackTraceResponse>(
        "stackTrace",
        { threadId: stop.threadId, startFrame: 0, levels: exception ? LIMITS.debugExceptionFrames : 1 },
        LIMITS.debugRequestTimeoutMs,
      );
      const top = r.body.stackFrames[0];
      if (!top) return;
      if (exception) {
        const own = this.ownFrames(r.body.stackFrames);
        this.exception = { ...(await this.exceptionInfo(stop)), frames: own };
      }
      const where = exception && this.exception?.frames[0] ? this.exception.frames[0] : { function: top.name, line: top.line, file: this.frameFile(top) };
      stop.function = where.function;
      stop.line = where.line;
      stop.file = where.file;
      this.frames.set(top.id, this.epoch);
    } catch {
      // A stop we cannot locate is still a stop.
    }
  }

  private frameFile(f: DebugProtocol.StackFrame): string {
    return f.source?.path ? this.info.relativize(f.source.path) : (f.source?.name ?? "");
  }

  /**
   * The program's frames of a traceback: those in the workspace when there are any (else every frame
   * with a source), never the debugger's or its launcher's.
   */
  private ownFrames(frames: DebugProtocol.StackFrame[]): DebugFrame[] {
    const withSource = frames.filter((f) => (f.source?.path || f.source?.name) && !LAUNCHER_FRAME.test(f.source?.path ?? f.source?.name ?? ""));
    const inside = withSource.filter((f) => f.source?.path && !this.frameFile(f).startsWith("/"));
    return (inside.length ? inside : withSource).map((f) => ({ function: f.name, file: this.frameFile(f), line: f.line }));
  }

  /** Type and message of the exception stopped on: from exceptionInfo when offered, else the stop's texts. */
  private async exceptionInfo(stop: DebugStopped): Promise<Omit<DebugException, "frames">> {
    const fallback = { type: stop.text || stop.description || "exception", message: stop.text ? stop.description : "", breakMode: "" };
    if (!this.capabilities.supportsExceptionInfoRequest || !this.connection) return fallback;
    try {
      const r = await this.connection.request<DebugProtocol.ExceptionInfoResponse>("exceptionInfo", { threadId: stop.threadId }, LIMITS.debugRequestTimeoutMs);
      const b = r.body;
      return {
        type: b.details?.typeName || b.exceptionId || fallback.type,
        message: b.details?.message ?? b.description ?? fallback.message,
        breakMode: b.breakMode ?? "",
      };
    } catch {
      return fallback;
    }
  }

  private markRunning(): void {
    if (!this.active) return;
    this.epoch++;
    this.state = "running";
    this.stopped = undefined;
    this.exception = undefined;
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }

  /** Waits until the program has stopped more than `afterStops` times, or ended, or waitMs passed. */
  private async waitForStop(afterStops: number, waitMs: number): Promise<void> {
    await this.waitForStopOrEnd(afterStops, waitMs);
    // An ended session finishes its disconnect first: delve tells the exit code only then.
    if (this.ending) await this.ending;
  }

  private waitForStopOrEnd(afterStops: number, waitMs: number): Promise<void> {
    return new Promise((resolve) => {
      const check = (): boolean => {
        if (this.stopCount > afterStops || !this.active) {
          clearTimeout(timer);
          this.waiters.delete(onChange);
          resolve();
          return true;
        }
        return false;
      };
      const onChange = (): void => {
        check();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(onChange);
        resolve();
      }, waitMs);
      this.waiters.add(onChange);
      check();
    });
  }

  // ---- reverse requests ----------------------------------------------------------------------

  private async runInTerminal(a: DebugProtocol.RunInTerminalRequestArguments): Promise<DebugProtocol.RunInTerminalResponse["body"]> {
    const [cmd, ...rest] = a.args;
    if (!cmd) throw new Error("runInTerminal without a command");
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [k, v] of Object.entries(a.env ?? {})) {
      if (v === null) delete env[k];
      else env[k] = v;
    }
    // Its stdin: the launch's text then end-of-file, or nothing (end-of-file at once) — never a
    // terminal nobody types into.
    const child = spawn(cmd, rest, { cwd: a.cwd || undefined, env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", () => resolve());
      child.once("error", (err) => reject(new Error(`could not run ${cmd}: ${err.message}`)));
    });
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(this.options.stdin ?? "");
    if (this.options.terminalOutput === "capture") {
      child.stdout?.on("data", (d: Buffer) => this.output.append(d.toString("utf8")));
      child.stderr?.on("data", (d: Buffer) => this.output.append(d.toString("utf8")));
    } else {
      child.stdout?.resume();
      child.stderr?.resume();
    }
    this.terminalChildren.push(child);
    return { processId: child.pid };
  }

  // ---- operations ----------------------------------------------------------------------------

  private conn(): DapConnection {
    if (!this.connection || !this.active) throw new AgentError("failed_precondition", `debug session ${this.id} has ended (${this.endedReason})`);
    return this.connection;
  }

  async setBreakpoints(file: string, lines: number[]): Promise<DebugBreakpoint[]> {
    this.conn();
    return this.sendBreakpoints(file, lines);
  }

  private async sendBreakpoints(file: string, lines: number[]): Promise<DebugBreakpoint[]> {
    const conn = this.conn();
    try {
      const r = await conn.request<DebugProtocol.SetBreakpointsResponse>(
        "setBreakpoints",
        { source: { path: file }, breakpoints: lines.map((line) => ({ line })), lines, sourceModified: false } satisfies DebugProtocol.SetBreakpointsArguments,
        LIMITS.debugRequestTimeoutMs,
      );
      return lines.map((requested, i) => {
        const b = r.body.breakpoints[i];
        return { requestedLine: requested, line: b?.line ?? 0, verified: b?.verified ?? false, message: b?.message ?? "" };
      });
    } catch (err) {
      return lines.map((requested) => ({ requestedLine: requested, line: 0, verified: false, message: this.describeError(err) }));
    }
  }

  private threadOr(threadId: number): number {
    if (threadId > 0) return threadId;
    if (this.stopped?.threadId) return this.stopped.threadId;
    return 0;
  }

  private async firstThread(): Promise<number> {
    const r = await this.conn().request<DebugProtocol.ThreadsResponse>("threads", undefined, LIMITS.debugRequestTimeoutMs);
    const t = r.body.threads[0];
    if (!t) throw new AgentError("failed_precondition", "the program has no threads");
    return t.id;
  }

  async resume(action: ResumeAction, threadId: number, waitMs: number): Promise<void> {
    const conn = this.conn();
    if (this.state !== "stopped") {
      throw new AgentError(
        "failed_precondition",
        `the program is ${this.state}, not stopped; ${action === "continue" ? "it is already running" : "pause it first"}`,
      );
    }
    const thread = this.threadOr(threadId) || (await this.firstThread());
    const before = this.stopCount;
    this.markRunning();
    try {
      await conn.request(action, { threadId: thread }, LIMITS.debugRequestTimeoutMs);
    } catch (err) {
      throw this.requestError(action, err);
    }
    await this.waitForStop(before, waitMs);
  }

  async pause(threadId: number, waitMs: number): Promise<void> {
    const conn = this.conn();
    if (this.state === "stopped") return;
    const thread = threadId > 0 ? threadId : await this.firstThread();
    const before = this.stopCount;
    try {
      await conn.request("pause", { threadId: thread }, LIMITS.debugRequestTimeoutMs);
    } catch (err) {
      throw this.requestError("pause", err);
    }
    await this.waitForStop(before, waitMs);
  }

  /** Read-only requests while stopped; references from before the last resume are refused. */
  async inspect(command: "threads" | "stackTrace" | "scopes" | "variables" | "evaluate", args: Record<string, unknown>): Promise<unknown> {
    const conn = this.conn();
    if (command !== "threads" && this.state !== "stopped") {
      throw new AgentError(
        "failed_precondition",
        `the program is ${this.state}: frames and variables exist only while it is stopped; pause it or wait for a breakpoint`,
      );
    }
    if (command === "stackTrace") {
      const thread = this.threadOr(Number(args.threadId ?? 0)) || (await this.firstThread());
      args = { ...args, threadId: thread };
    }
    if (command === "scopes") this.checkAlive("frame", this.frames, Number(args.frameId));
    if (command === "variables") this.checkAlive("reference", this.references, Number(args.variablesReference));
    if (command === "evaluate") {
      if (args.frameId === undefined) args = { ...args, frameId: await this.topFrame() };
      else this.checkAlive("frame", this.frames, Number(args.frameId));
    }
    let body: unknown;
    try {
      body = (await conn.request<DebugProtocol.Response>(command, args, LIMITS.debugRequestTimeoutMs)).body;
    } catch (err) {
      throw this.requestError(command, err);
    }
    this.remember(command, body);
    return body;
  }

  private async topFrame(): Promise<number | undefined> {
    if (!this.stopped?.threadId) return undefined;
    const r = await this.conn().request<DebugProtocol.StackTraceResponse>(
      "stackTrace",
      { threadId: this.stopped.threadId, startFrame: 0, levels: 1 },
      LIMITS.debugRequestTimeoutMs,
    );
    const id = r.body.stackFrames[0]?.id;
    if (id !== undefined) this.frames.set(id, this.epoch);
    return id;
  }

  private checkAlive(what: "frame" | "reference", known: Map<number, number>, id: number): void {
    const epoch = known.get(id);
    if (epoch === undefined) {
      throw new AgentError(
        "invalid_argument",
        what === "frame"
          ? `there is no frame ${id} at this stop; take a frame_id from stack`
          : `there is no variables reference ${id} at this stop; take one from scopes, variables or evaluate`,
      );
    }
    if (epoch !== this.epoch) {
      throw new AgentError(
        "failed_precondition",
        `${what} ${id} is from before the program last resumed, and references die at each resume; call stack${what === "reference" ? " and scopes" : ""} again`,
      );
    }
  }

  private remember(command: string, body: unknown): void {
    const b = body as Record<string, unknown> | undefined;
    if (!b) return;
    if (command === "stackTrace") {
      for (const f of (b.stackFrames as DebugProtocol.StackFrame[] | undefined) ?? []) {
        this.frames.set(f.id, this.epoch);
        if (f.source?.path) (f.source as { path: string }).path = this.info.relativize(f.source.path);
      }
    } else if (command === "scopes") {
      for (const s of (b.scopes as DebugProtocol.Scope[] | undefined) ?? [])
        if (s.variablesReference > 0) this.references.set(s.variablesReference, this.epoch);
    } else if (command === "variables") {
      for (const v of (b.variables as DebugProtocol.Variable[] | undefined) ?? [])
        if (v.variablesReference > 0) this.references.set(v.variablesReference, this.epoch);
    } else if (command === "evaluate") {
      const ref = Number(b.variablesReference ?? 0);
      if (ref > 0) this.references.set(ref, this.epoch);
    }
  }

  // ---- end -----------------------------------------------------------------------------------

  /** Why the session ended, in words; a program's end says its exit code once one is known. */
  get endedReason(): string {
    if (this.endedKind !== DebugEndKind.DEBUG_END_KIND_PROGRAM_ENDED) return this.endWords;
    return this.exitCode === undefined ? "the program ended" : `the program exited with code ${this.exitCode}`;
  }

  /**
   * Ends the session: disconnect (terminating the debuggee), then kill the adapter's group. `reason`
   * is the words for people (unused for a program's end, which endedReason words itself).
   */
  end(reason: string, kill: boolean, kind: DebugEndKind): Promise<void> {
    if (this.ending) return this.ending;
    this.endWords = reason;
    this.endedKind = kind;
    this.state = this.exitCode !== undefined ? "exited" : "terminated";
    this.notify();
    this.ending = (async () => {
      const conn = this.connection;
      if (conn && !conn.closed) {
        try {
          await conn.request("disconnect", { terminateDebuggee: true, restart: false }, kill ? 3_000 : 5_000);
        } catch {
          // Already gone, or too slow: the kill below settles it.
        }
        // The exit code may arrive with the disconnect's output (delve says it on its console).
        this.state = this.exitCode !== undefined ? "exited" : "terminated";
        conn.close("session ended");
      }
      this.adapter?.kill();
      this.socket?.destroy();
      if (this.builtBinary) {
        // dlv removes its build on a clean exit; when it was killed, we do, once it is gone.
        if (this.adapter) await within(this.adapter.exited, 3_000, undefined);
        await rm(this.builtBinary, { force: true }).catch(() => undefined);
      }
      for (const p of this.options.cleanup) await rm(p, { recursive: true, force: true }).catch(() => undefined);
      for (const c of this.terminalChildren) {
        if (c.exitCode === null) killProcessTree(c.pid);
      }
      this.notify();
    })();
    return this.ending;
  }

  private describeError(err: unknown): string {
    const base = err instanceof Error ? err.message : String(err);
    const diag = this.adapter?.diagnostics().trim();
    return diag && !(err instanceof DapRequestError) ? `${base}; the adapter said: ${diag.slice(-600)}` : base;
  }

  private requestError(command: string, err: unknown): AgentError {
    if (err instanceof AgentError) return err;
    if (err instanceof DapRequestError) return new AgentError("failed_precondition", `${command} failed: ${err.message}`);
    if (err instanceof DapTimeoutError)
      return new AgentError("failed_precondition", `${err.message}; the adapter may be stuck: terminate the session and launch again`);
    if (err instanceof DapClosedError) return new AgentError("failed_precondition", `${err.message}; the session has ended`);
    return new AgentError("internal", this.describeError(err));
  }
}
