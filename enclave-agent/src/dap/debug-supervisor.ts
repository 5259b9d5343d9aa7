// The debug supervisor: at most one session per key (the conversation), the breakpoints set for it
// (kept across sessions, applied at launch), a queue that serializes its calls, and the hard TTL.
// This queue is the only one: the control plane passes calls straight through and relies on it.
// After a session ends, its record stays so status, output and the next call can say what happened.
import { existsSync, mkdtempSync, readlinkSync, type Stats, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, extname, isAbsolute, join, relative } from "node:path";
import type { DebugProtocol } from "@vscode/debugprotocol";
import type {
  DebugAdapter,
  DebugBreakpointsResponse,
  DebugScopesResponse,
  DebugStackResponse,
  DebugStatus,
  DebugThreadsResponse,
  DebugValue,
  DebugVariablesResponse,
} from "@enclave/proto/gen/enclave/agent/v1/debug.js";
import { DebugAdapterState, DebugEndKind, DebugResumeKind } from "@enclave/proto/gen/enclave/agent/v1/debug.js";
import { AgentError } from "../errors.js";
import type { WorkspacePaths } from "../fs/workspace-paths.js";
import { LIMITS } from "../limits.js";
import { DEBUG_ADAPTERS, type DebugAdapterSpec } from "@enclave/proto/adapter-registry.js";
import { type AdapterAvailability, adapterAvailability, type AdapterState, allAdapterAvailability } from "./adapter-availability.js";
import { type Breakpoints, DebugSession, EXCEPTION_MODES, type ExceptionMode, type LaunchOptions, type ResumeAction } from "./debug-session.js";
import { attachArguments, launchArguments, type SourcePrefix } from "./launch-arguments.js";

const ADAPTER_STATES: Record<AdapterState, DebugAdapterState> = {
  usable: DebugAdapterState.DEBUG_ADAPTER_STATE_USABLE,
  missing_marker: DebugAdapterState.DEBUG_ADAPTER_STATE_MISSING_MARKER,
  missing_binary: DebugAdapterState.DEBUG_ADAPTER_STATE_MISSING_BINARY,
};

/** The DAP request each resume kind sends. */
const RESUME_COMMANDS: Partial<Record<DebugResumeKind, ResumeAction>> = {
  [DebugResumeKind.DEBUG_RESUME_KIND_CONTINUE]: "continue",
  [DebugResumeKind.DEBUG_RESUME_KIND_STEP_OVER]: "next",
  [DebugResumeKind.DEBUG_RESUME_KIND_STEP_IN]: "stepIn",
  [DebugResumeKind.DEBUG_RESUME_KIND_STEP_OUT]: "stepOut",
};

interface Slot {
  current?: DebugSession;
  breakpoints: Breakpoints;
  queue: Promise<unknown>;
  ttlTimer?: NodeJS.Timeout;
}

function minutes(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} minute${ms === 60_000 ? "" : "s"}`;
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} seconds`;
}

export class DebugSupervisor {
  private readonly slots = new Map<string, Slot>();

  constructor(private readonly paths: WorkspacePaths) {}

  private slot(key: string): Slot {
    if (!key) throw new AgentError("invalid_argument", "session_key is required (the conversation id)");
    let s = this.slots.get(key);
    if (!s) {
      s = { breakpoints: { files: new Map(), results: new Map() }, queue: Promise.resolve() };
      this.slots.set(key, s);
    }
    return s;
  }

  /** Runs fn after every earlier call on the same key: a `continue` never races a `stack`. */
  serialized<T>(key: string, fn: (slot: Slot) => Promise<T>): Promise<T> {
    const s = this.slot(key);
    const run = s.queue.then(() => fn(s));
    s.queue = run.catch(() => undefined);
    return run;
  }

  async adapters(): Promise<DebugAdapter[]> {
    const all = await allAdapterAvailability(this.paths.root);
    return all.map((a) => ({
      id: a.spec.id,
      state: ADAPTER_STATES[a.state],
      markers: a.markers,
      command: a.command?.join(" ") ?? "",
      interpreter: a.interpreter ?? "",
      detail: a.detail,
      attach: a.spec.attach,
      extensions: a.spec.extensions,
    }));
  }

  status(key: string): Promise<DebugStatus> {
    return this.serialized(key, async (s) => this.describe(s));
  }

  private describe(s: Slot): DebugStatus {
    const bps: DebugBreakpointsResponse[] = [...s.breakpoints.files].map(([file, lines]) => ({
      file: this.paths.relative(file),
      breakpoints: s.breakpoints.results.get(file) ?? lines.map((l) => ({ requestedLine: l, line: 0, verified: false, message: "" })),
      // What the adapter answered at the last launch (or since); cleared when changed with no session.
      applied: s.breakpoints.results.has(file),
    }));
    const c = s.current;
    if (!c) {
      return {
        active: false,
        sessionId: "",
        adapter: "",
        program: "",
        state: "",
        stopped: undefined,
        hasExitCode: false,
        exitCode: 0,
        startedAtMs: 0,
        expiresAtMs: 0,
        endedReason: "",
        interpreter: "",
        notes: [],
        breakpoints: bps,
        exception: undefined,
        endedKind: DebugEndKind.DEBUG_END_KIND_UNSPECIFIED,
      };
    }
    return {
      active: c.active,
      sessionId: c.id,
      adapter: c.info.spec.id,
      program: c.info.program,
      state: c.state,
      stopped: c.state === "stopped" ? c.stopped : undefined,
      hasExitCode: c.exitCode !== undefined,
      exitCode: c.exitCode ?? 0,
      startedAtMs: c.startedAtMs,
      expiresAtMs: c.expiresAtMs,
      endedReason: c.active ? "" : c.endedReason,
      endedKind: c.active ? DebugEndKind.DEBUG_END_KIND_UNSPECIFIED : c.endedKind,
      interpreter: c.info.interpreter ?? "",
      notes: [...c.notes],
      breakpoints: bps,
      exception: c.state === "stopped" ? c.exception : undefined,
    };
  }

  /** The running session, or an error that says why there is none (ended, TTL, never launched). */
  private running(s: Slot): DebugSession {
    const c = s.current;
    if (c?.active) return c;
    if (c) {
      throw new AgentError(
        "failed_precondition",
        `no debug session is running: the last one (${c.id}, ${c.info.spec.id} ${c.info.program}) ended: ${c.endedReason}. Launch again to debug.`,
      );
    }
    throw new AgentError("failed_precondition", "no debug session is running; start one with launch (or attach)");
  }

  private refuseSecond(s: Slot): void {
    const c = s.current;
    if (!c?.active) return;
    const where = c.state === "stopped" && c.stopped ? `stopped at ${c.stopped.file}:${c.stopped.line}` : c.state;
    const age = Math.round((Date.now() - c.startedAtMs) / 1000);
    throw new AgentError(
      "already_exists",
      `a debug session is already running for this conversation: ${c.id} (${c.info.spec.id}, ${c.info.program}, ${where}, started ${age} s ago). ` +
        `One session per conversation: terminate it first, then launch again.`,
    );
  }

  setBreakpoints(key: string, file: string, lines: number[]): Promise<DebugBreakpointsResponse> {
    return this.serialized(key, async (s) => {
      const abs = this.paths.resolve(file, "list").abs;
      if (!this.paths.statIfExists(abs, "list")?.st.isFile()) throw new AgentError("not_found", `\`${file}\` is not a file in the workspace`);
      for (const l of lines) if (!Number.isInteger(l) || l < 1) throw new AgentError("invalid_argument", `line ${l} is not a 1-based line number`);
      const unique = [...new Set(lines)].sort((a, b) => a - b);
      if (unique.length === 0) {
        s.breakpoints.files.delete(abs);
        s.breakpoints.results.delete(abs);
      } else s.breakpoints.files.set(abs, unique);
      const c = s.current;
      if (c?.active) {
        const results = await c.setBreakpoints(abs, unique);
        if (unique.length) s.breakpoints.results.set(abs, results);
        return { file: this.paths.relative(abs), breakpoints: results, applied: true };
      }
      s.breakpoints.results.delete(abs);
      return { file: this.paths.relative(abs), breakpoints: unique.map((l) => ({ requestedLine: l, line: 0, verified: false, message: "" })), applied: false };
    });
  }

  launch(
    key: string,
    program: string,
    args: string[],
    adapterId: string,
    ttlMs: number,
    waitMs: number,
    stdin: string | undefined,
    exceptions: string,
    sourcePrefixes: readonly SourcePrefix[] = [],
  ): Promise<DebugStatus> {
    const mode = this.exceptionMode(exceptions);
    if (stdin !== undefined && Buffer.byteLength(stdin) > LIMITS.debugStdinMaxBytes) {
      throw new AgentError(
        "too_large",
        `stdin is ${Buffer.byteLength(stdin)} bytes; at most ${LIMITS.debugStdinMaxBytes} are fed to a program (put larger input in a file and pass its path in args)`,
      );
    }
    return this.serialized(key, async (s) => {
      this.refuseSecond(s);
      const abs = this.paths.resolve(program, "list").abs;
      const st = this.paths.statIfExists(abs, "list")?.st;
      if (!st) throw new AgentError("not_found", `program \`${program}\` does not exist in the workspace`);
      const spec = adapterId ? this.adapterById(adapterId) : this.pickAdapter(abs, st, program);
      const start = st.isDirectory() ? abs : dirname(abs);
      const avail = await adapterAvailability(spec, this.paths.root, start);
      this.checkUsable(avail);
      const cwd = avail.projectRoot ?? start;
      const session = this.newSession(key, spec, this.paths.relative(abs), avail.interpreter, ttlMs);
      s.current = session;
      this.armTtl(s, session);
      const options = this.stdinFor(spec, stdin, mode);
      session.notes.push(
        stdin === undefined
          ? "stdin is not connected: a read gets end-of-file at once (give `stdin` at launch to feed the program input)"
          : `stdin: the ${Buffer.byteLength(stdin)} bytes given at launch, then end-of-file`,
      );
      const stdinFile = options.cleanup[0] ? join(options.cleanup[0], "stdin") : undefined;
      const launchArgs = launchArguments(spec, {
        program: abs,
        args,
        cwd,
        interpreter: avail.interpreter,
        programIsFolder: st.isDirectory(),
        stdin: stdin === undefined ? undefined : { text: stdin, file: stdinFile },
        sourcePrefixes: sourcePrefixes.filter((m) => isAbsolute(m.recorded) && (m.here === this.paths.root || m.here.startsWith(`${this.paths.root}/`))),
      });
      try {
        await session.launch(avail.command ?? [], cwd, this.adapterEnv(), launchArgs, s.breakpoints, waitMs > 0 ? waitMs : LIMITS.debugStopWaitMs, options);
      } finally {
        if (!session.active) this.disarmTtl(s);
      }
      return this.describe(s);
    });
  }

  /**
   * Attaches to a program already running in this placement: debugpy and delve by the loopback port
   * their DAP server listens on, lldb by the program's pid (the adapter is started here and attaches).
   */
  attach(key: string, target: { port: number; pid: number }, adapterId: string, ttlMs: number, waitMs: number, exceptions = ""): Promise<DebugStatus> {
    const mode = this.exceptionMode(exceptions);
    return this.serialized(key, async (s) => {
      this.refuseSecond(s);
      const spec = this.adapterById(adapterId || (target.pid && !target.port ? "lldb" : "debugpy"));
      const wait = waitMs > 0 ? waitMs : LIMITS.debugStopWaitMs;
      if (spec.id === "lldb") {
        if (target.port) throw new AgentError("invalid_argument", "lldb attaches by `pid`, not `port` (debugpy and delve take a port)");
        if (!Number.isInteger(target.pid) || target.pid < 2)
          throw new AgentError("invalid_argument", `pid ${target.pid} is not a process id lldb can attach to; give the pid exec reported for the program`);
        if (target.pid === process.pid)
          throw new AgentError("invalid_argument", `pid ${target.pid} is the enclave agent itself; attach to the program you started`);
        if (!existsSync(`/proc/${target.pid}`))
          throw new AgentError("not_found", `no process ${target.pid} runs in this placement; start the program first (exec reports its pid)`);
        // The project is the one the program's executable is in, when that is in the workspace.
        let start = this.paths.root;
        try {
          const exe = readlinkSync(`/proc/${target.pid}/exe`);
          if (exe.startsWith(`${this.paths.root}/`)) start = dirname(exe);
        } catch {
          // Not ours to read (another user's process): lldb will say why it cannot attach.
        }
        const avail = await adapterAvailability(spec, this.paths.root, start);
        this.checkUsable(avail);
        const cwd = avail.projectRoot ?? start;
        const session = this.newSession(key, spec, `pid ${target.pid}`, undefined, ttlMs);
        s.current = session;
        this.armTtl(s, session);
        try {
          await session.attachProcess(avail.command ?? [], cwd, this.adapterEnv(), attachArguments(spec, cwd, target.pid), s.breakpoints, wait, mode);
        } finally {
          if (!session.active) this.disarmTtl(s);
        }
        return this.describe(s);
      }
      if (!spec.attach) {
        const can = DEBUG_ADAPTERS.filter((a) => a.attach)
          .map((a) => a.id)
          .join(", ");
        throw new AgentError(
          "invalid_argument",
          `attach by port works with ${can} (e.g. \`python3 -m debugpy --listen 127.0.0.1:PORT\`, \`dlv dap --listen\`), and lldb attaches by pid; not ${spec.id}`,
        );
      }
      if (target.pid) throw new AgentError("invalid_argument", `${spec.id} attaches by \`port\` (its DAP server on 127.0.0.1), not \`pid\`; lldb takes a pid`);
      const port = target.port;
      if (!Number.isInteger(port) || port < 1 || port > 65535) throw new AgentError("invalid_argument", `port ${port} is not a TCP port (1-65535)`);
      const session = this.newSession(key, spec, `127.0.0.1:${port}`, undefined, ttlMs);
      s.current = session;
      this.armTtl(s, session);
      try {
        await session.attach(port, attachArguments(spec, this.paths.root), s.breakpoints, wait, mode);
      } finally {
        if (!session.active) this.disarmTtl(s);
      }
      return this.describe(s);
    });
  }

  resume(key: string, kind: DebugResumeKind, threadId: number, waitMs: number): Promise<DebugStatus> {
    const action = RESUME_COMMANDS[kind];
    if (!action) throw new AgentError("invalid_argument", `unknown resume kind ${kind} (${DebugResumeKind[kind] ?? "not in this agent's protocol"})`);
    return this.serialized(key, async (s) => {
      await this.running(s).resume(action, threadId, waitMs > 0 ? waitMs : LIMITS.debugStopWaitMs);
      return this.describe(s);
    });
  }

  pause(key: string, threadId: number, waitMs: number): Promise<DebugStatus> {
    return this.serialized(key, async (s) => {
      await this.running(s).pause(threadId, waitMs > 0 ? waitMs : LIMITS.debugStopWaitMs);
      return this.describe(s);
    });
  }

  threads(key: string): Promise<DebugThreadsResponse> {
    return this.serialized(key, async (s) => {
      const body = (await this.running(s).inspect("threads", {})) as DebugProtocol.ThreadsResponse["body"] | undefined;
      return { threads: (body?.threads ?? []).map((t) => ({ id: t.id, name: t.name })) };
    });
  }

  /** The frames of a thread, innermost first, with the exception it stopped on (one answer, one stop). */
  stack(key: string, threadId: number, levels: number): Promise<DebugStackResponse> {
    return this.serialized(key, async (s) => {
      const c = this.running(s);
      const args = { threadId, startFrame: 0, ...(levels > 0 ? { levels } : {}) };
      const body = (await c.inspect("stackTrace", args)) as DebugProtocol.StackTraceResponse["body"] | undefined;
      const frames = (body?.stackFrames ?? []).map((f) => ({ id: f.id, name: f.name, file: f.source?.path ?? f.source?.name ?? "", line: f.line }));
      return { frames, total: body?.totalFrames ?? 0, exception: c.state === "stopped" ? c.exception : undefined };
    });
  }

  scopes(key: string, frameId: number): Promise<DebugScopesResponse> {
    return this.serialized(key, async (s) => {
      const body = (await this.running(s).inspect("scopes", { frameId })) as DebugProtocol.ScopesResponse["body"] | undefined;
      return { scopes: (body?.scopes ?? []).map((x) => ({ name: x.name, reference: x.variablesReference, expensive: x.expensive })) };
    });
  }

  variables(key: string, reference: number): Promise<DebugVariablesResponse> {
    return this.serialized(key, async (s) => {
      const body = (await this.running(s).inspect("variables", { variablesReference: reference })) as DebugProtocol.VariablesResponse["body"] | undefined;
      return { variables: (body?.variables ?? []).map((v) => ({ name: v.name, type: v.type ?? "", value: v.value, reference: v.variablesReference })) };
    });
  }

  evaluate(key: string, expression: string, frameId: number | undefined): Promise<DebugValue> {
    if (!expression) throw new AgentError("invalid_argument", "expression is required");
    return this.serialized(key, async (s) => {
      const args: DebugProtocol.EvaluateArguments = { expression, context: "repl", ...(frameId === undefined ? {} : { frameId }) };
      const body = (await this.running(s).inspect("evaluate", args as unknown as Record<string, unknown>)) as
        DebugProtocol.EvaluateResponse["body"] | undefined;
      return { result: body?.result ?? "", type: body?.type ?? "", reference: body?.variablesReference ?? 0 };
    });
  }

  output(key: string): Promise<{ text: string; droppedBytes: number; totalBytes: number; sessionId: string }> {
    return this.serialized(key, async (s) => {
      const c = s.current;
      if (!c) throw new AgentError("failed_precondition", "no debug session has run in this conversation yet; launch one first");
      return { ...c.output.snapshot(), sessionId: c.id };
    });
  }

  terminate(key: string): Promise<DebugStatus> {
    return this.serialized(key, async (s) => {
      const c = this.running(s);
      await c.end("terminated on request", true, DebugEndKind.DEBUG_END_KIND_TERMINATED);
      this.disarmTtl(s);
      return this.describe(s);
    });
  }

  /**
   * Ends every live session before the enclosure is checkpointed: an adapter's loopback TCP connection
   * cannot be saved by gVisor. Each session ends as terminated, its reason saying the pause ended it.
   * Returns one line per session ended.
   */
  async endForCheckpoint(): Promise<string[]> {
    const ended: string[] = [];
    await Promise.all(
      [...this.slots.entries()].map(([key, s]) =>
        this.serialized(key, async () => {
          const c = s.current;
          if (!c?.active) return;
          this.disarmTtl(s);
          await c.end(
            "the enclosure was paused: a checkpoint cannot keep the debug adapter's loopback connection, so the session ended",
            true,
            DebugEndKind.DEBUG_END_KIND_TERMINATED,
          );
          ended.push(`session ${c.id} (${c.info.spec.id}, ${c.info.program})`);
        }).catch(() => undefined),
      ),
    );
    return ended;
  }

  /** Ends every session (the agent is stopping): no adapter or debuggee outlives it. */
  async closeAll(): Promise<void> {
    await Promise.all(
      [...this.slots.values()].map(async (s) => {
        this.disarmTtl(s);
        if (s.current?.active) await s.current.end("the enclave agent stopped", true, DebugEndKind.DEBUG_END_KIND_AGENT_STOPPED);
      }),
    );
  }

  // ---- helpers -------------------------------------------------------------------------------

  private exceptionMode(value: string): ExceptionMode {
    if (!value) return "uncaught";
    if (!(EXCEPTION_MODES as readonly string[]).includes(value)) {
      throw new AgentError("invalid_argument", `exceptions \`${value}\` is not one of ${EXCEPTION_MODES.join(", ")}`);
    }
    return value as ExceptionMode;
  }

  /**
   * How the program's stdin is fed, per adapter: debugpy through a runInTerminal launch whose stdin
   * the agent writes (its output still comes as events); lldb from a file in a private folder; delve
   * through dlv's own stdin (startAdapter).
   */
  private stdinFor(spec: DebugAdapterSpec, stdin: string | undefined, exceptions: ExceptionMode): LaunchOptions {
    const options: LaunchOptions = { stdin, exceptions, terminalOutput: spec.id === "debugpy" ? "ignore" : "capture", cleanup: [] };
    if (stdin !== undefined && spec.id === "dart") {
      throw new AgentError("invalid_argument", "the dart adapter cannot be given stdin text here; leave `stdin` out (reads then get end-of-file)");
    }
    if (stdin !== undefined && spec.id === "lldb") {
      const dir = mkdtempSync(join(tmpdir(), "enclave-debug-stdin-"));
      writeFileSync(join(dir, "stdin"), stdin, { mode: 0o600 });
      options.cleanup.push(dir);
    }
    return options;
  }

  private newSession(key: string, spec: DebugAdapterSpec, program: string, interpreter: string | undefined, ttlMs: number): DebugSession {
    return new DebugSession({
      key,
      spec,
      program,
      interpreter,
      ttlMs: ttlMs > 0 ? ttlMs : LIMITS.debugSessionTtlMs,
      relativize: (p) => {
        const rel = relative(this.paths.root, p);
        return rel && !rel.startsWith("..") && !rel.startsWith("/") ? rel : p;
      },
    });
  }

  /** The hard TTL: the session is terminated when it expires, whatever it is doing. */
  private armTtl(s: Slot, session: DebugSession): void {
    this.disarmTtl(s);
    const ttl = session.expiresAtMs - session.startedAtMs;
    s.ttlTimer = setTimeout(() => {
      s.ttlTimer = undefined;
      if (s.current === session && session.active) {
        void session.end(
          `it reached its hard TTL of ${minutes(ttl)} and was terminated at ${new Date().toISOString()}`,
          true,
          DebugEndKind.DEBUG_END_KIND_TTL_EXPIRED,
        );
      }
    }, ttl);
    s.ttlTimer.unref();
  }

  private disarmTtl(s: Slot): void {
    if (s.ttlTimer) clearTimeout(s.ttlTimer);
    s.ttlTimer = undefined;
  }

  private adapterById(id: string): DebugAdapterSpec {
    const spec = DEBUG_ADAPTERS.find((a) => a.id === id);
    if (!spec) throw new AgentError("invalid_argument", `unknown adapter \`${id}\`; one of ${DEBUG_ADAPTERS.map((a) => a.id).join(", ")}`);
    return spec;
  }

  /** Picks the adapter from the program: its extension, a Go package folder, or an ELF executable. */
  private pickAdapter(abs: string, st: Stats, shown: string): DebugAdapterSpec {
    const ext = extname(abs);
    if (st.isDirectory()) {
      if (this.paths.statIfExists(join(abs, "go.mod"), "list") || this.hasGoSources(abs)) return this.adapterById("delve");
      throw new AgentError("invalid_argument", `\`${shown}\` is a folder without Go sources; give a program file (or adapter)`);
    }
    const byExt = DEBUG_ADAPTERS.find((a) => a.extensions.includes(ext));
    if (byExt) return byExt;
    if (this.isElf(abs)) return this.adapterById("lldb");
    throw new AgentError(
      "invalid_argument",
      `cannot tell which adapter debugs \`${shown}\`: give adapter (one of ${DEBUG_ADAPTERS.map((a) => a.id).join(", ")}). ` +
        "Python scripts (.py) go to debugpy, Go (.go or a package folder) to delve, compiled executables to lldb.",
    );
  }

  private checkUsable(a: AdapterAvailability): void {
    if (a.state === "usable") return;
    throw new AgentError("failed_precondition", `the ${a.spec.id} adapter cannot start here: ${a.detail}`);
  }

  private hasGoSources(dir: string): boolean {
    try {
      const d = this.paths.openDir(dir);
      try {
        return d.names().some((n) => n.endsWith(".go"));
      } finally {
        d.close();
      }
    } catch {
      return false;
    }
  }

  private isElf(p: string): boolean {
    try {
      const head = this.paths.readFileSync(p, "read", 4);
      return head[0] === 0x7f && head.toString("ascii", 1, 4) === "ELF";
    } catch {
      return false;
    }
  }

  private adapterEnv(): NodeJS.ProcessEnv {
    // PYTHONUNBUFFERED: debugpy forwards output as it is written, not at exit.
    return { ...process.env, PYTHONUNBUFFERED: "1" };
  }
}
