// debug against a direct client of the same debug adapter: the same program, the same breakpoints and
// the same steps, driven through Enclave's debug tool and by a minimal DAP client. At every stop the
// location, the stack (function, file, line) and the top frame's locals (name, type, value) are
// compared. Values differ only where Enclave says it cut them (400 characters, 50 children);
// addresses (0x…) are not compared (ASLR differs between the two runs).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { resultText } from "@enclave/client/control-plane-client.js";
import type { Fixture } from "../helpers/control-plane-fixture.js";
import type { DebugProgram } from "./lsp-debug-corpus.js";

export type Step = "continue" | "step_over" | "step_in" | "step_out";
/** After the launch (which stops at the first breakpoint), these, until the program ends. */
export const STEPS: readonly Step[] = ["step_in", "step_over", "step_over", "continue", "step_over", "step_out", "continue", "continue"];

export interface Stop {
  where: string;
  frames: string[];
  locals: string[];
  /** Enclave cut some values or children (it says so). */
  cut: string[];
}

export interface ProgramRun {
  adapter: string;
  stops: Array<{ step: string; enclave: Stop | "ended"; direct: Stop | "ended"; verdict: string }>;
}

// Addresses (0x7f…, or the tail of one in a truncated repr) differ from run to run, and so does a Go
// function's unnamed result (~r0) before it returns: whatever its stack slot held.
const noAddresses = (s: string): string =>
  s.replace(/\b(?:0x[0-9a-f]+|[0-9a-f]{8,})\b/gi, "0x…").replace(/^(~r\d+(?: \([^)]*\))?) = .*$/s, "$1 = (unset until it returns)");

// ---- the direct client --------------------------------------------------------------------------

interface DapMessage {
  seq: number;
  type: string;
  command?: string;
  event?: string;
  request_seq?: number;
  success?: boolean;
  message?: string;
  body?: Record<string, unknown>;
  arguments?: unknown;
}

class DirectDap {
  private seq = 1;
  private buf = Buffer.alloc(0);
  private readonly waiting = new Map<number, (m: DapMessage) => void>();
  private readonly events: DapMessage[] = [];
  /** What came on the adapter's output that was not a DAP message. */
  private readonly noise: string[] = [];
  private readonly eventWaiters: Array<{ match: (m: DapMessage) => boolean; resolve: (m: DapMessage | undefined) => void }> = [];

  constructor(
    private readonly out: NodeJS.WritableStream,
    input: NodeJS.ReadableStream,
    readonly child: ChildProcess,
    readonly socket?: Socket,
  ) {
    input.on("data", (d: Buffer) => this.read(d));
  }

  private read(d: Buffer): void {
    this.buf = Buffer.concat([this.buf, d]);
    for (;;) {
      const end = this.buf.indexOf("\r\n\r\n");
      if (end < 0) return;
      const len = Number(/Content-Length: (\d+)/i.exec(this.buf.subarray(0, end).toString())?.[1]);
      if (!Number.isFinite(len)) {
        // Not a DAP header (an adapter printing to its output): kept for the failure message, skipped.
        this.noise.push(this.buf.subarray(0, end).toString());
        this.buf = this.buf.subarray(end + 4);
        continue;
      }
      if (this.buf.length < end + 4 + len) return;
      const text = this.buf.subarray(end + 4, end + 4 + len).toString();
      this.buf = this.buf.subarray(end + 4 + len);
      let msg: DapMessage;
      try {
        msg = JSON.parse(text) as DapMessage;
      } catch {
        this.noise.push(text);
        continue;
      }
      if (msg.type === "response") this.waiting.get(msg.request_seq ?? -1)?.(msg);
      else if (msg.type === "event") {
        this.events.push(msg);
        for (const w of [...this.eventWaiters]) {
          if (w.match(msg)) {
            this.eventWaiters.splice(this.eventWaiters.indexOf(w), 1);
            w.resolve(msg);
          }
        }
      } else if (msg.type === "request") {
        // No reverse request is needed by these launches; refuse any.
        this.write({ seq: this.seq++, type: "response", request_seq: msg.seq, command: msg.command, success: false, message: "not supported" });
      }
    }
  }

  private write(m: Record<string, unknown>): void {
    const body = Buffer.from(JSON.stringify(m));
    this.out.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
  }

  request(command: string, args?: unknown, timeoutMs = 60_000): Promise<DapMessage> {
    const seq = this.seq++;
    this.write({ seq, type: "request", command, arguments: args });
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        const seen = this.noise.length ? `; not DAP on its output: ${this.noise.join(" | ").slice(0, 600)}` : "";
        reject(new Error(`direct ${command}: no answer in ${timeoutMs} ms${seen}`));
      }, timeoutMs);
      this.waiting.set(seq, (m) => {
        clearTimeout(t);
        resolve(m);
      });
    });
  }

  /** The next event matching (counting from now), or undefined after timeoutMs. */
  next(match: (m: DapMessage) => boolean, timeoutMs: number): Promise<DapMessage | undefined> {
    return new Promise((resolve) => {
      const w = { match, resolve };
      this.eventWaiters.push(w);
      setTimeout(() => {
        const i = this.eventWaiters.indexOf(w);
        if (i >= 0) {
          this.eventWaiters.splice(i, 1);
          resolve(undefined);
        }
      }, timeoutMs);
    });
  }

  kill(): void {
    this.socket?.destroy();
    try {
      if (this.child.pid) process.kill(-this.child.pid, "SIGKILL");
    } catch {
      // Gone.
    }
  }
}

async function startDirect(p: DebugProgram, workspace: string): Promise<DirectDap> {
  const env = { ...process.env, PYTHONUNBUFFERED: "1" };
  if (p.adapter === "delve") {
    const child = spawn("dlv", ["dap", "--listen", "127.0.0.1:0"], { cwd: join(workspace, p.program), env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const port = await new Promise<number>((resolve, reject) => {
      let seen = "";
      const t = setTimeout(() => reject(new Error(`dlv did not listen: ${seen}`)), 30_000);
      child.stdout?.on("data", (d: Buffer) => {
        seen += d.toString();
        const m = /listening at: .*:(\d+)/.exec(seen);
        if (m) {
          clearTimeout(t);
          resolve(Number(m[1]));
        }
      });
    });
    child.stderr?.resume();
    const socket = connect(port, "127.0.0.1");
    await new Promise((r) => socket.once("connect", r));
    return new DirectDap(socket, socket, child, socket);
  }
  const argv = p.adapter === "debugpy" ? ["/usr/bin/python3", "-m", "debugpy.adapter"] : ["lldb-vscode-15"];
  const child = spawn(argv[0] as string, argv.slice(1), { env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
  child.stderr?.resume();
  return new DirectDap(child.stdin as NodeJS.WritableStream, child.stdout as NodeJS.ReadableStream, child);
}

function launchArgs(p: DebugProgram, workspace: string, scratch: string): Record<string, unknown> {
  const program = join(workspace, p.program);
  if (p.adapter === "debugpy") return { program, cwd: dirname(program), console: "internalConsole", justMyCode: true, python: ["/usr/bin/python3"] };
  // The program was built in the sandbox, where the workspace is /workspace: map its debug info's paths.
  if (p.adapter === "lldb")
    return { program, cwd: dirname(program), stopOnEntry: false, initCommands: [`settings set target.source-map /workspace ${workspace}`] };
  return { mode: "debug", program, cwd: program, output: join(scratch, "bin") };
}

async function directStop(dap: DirectDap, threadId: number, workspace: string): Promise<Stop> {
  const rel = (path: string | undefined, name: string | undefined): string => {
    if (!path) return name ?? "no source";
    const r = relative(workspace, path);
    return r.startsWith("..") ? path : r;
  };
  const st = await dap.request("stackTrace", { threadId, startFrame: 0, levels: 30 });
  const frames = ((st.body?.stackFrames as Array<{ id: number; name: string; line: number; source?: { path?: string; name?: string } }>) ?? []).slice(0, 30);
  const top = frames[0];
  const locals: string[] = [];
  if (top) {
    const scopes = await dap.request("scopes", { frameId: top.id });
    const list = (scopes.body?.scopes as Array<{ name: string; variablesReference: number }>) ?? [];
    const scope = list.find((s) => /^locals$/i.test(s.name)) ?? list[0];
    if (scope && scope.variablesReference > 0) {
      const vars = await dap.request("variables", { variablesReference: scope.variablesReference });
      for (const v of (vars.body?.variables as Array<{ name: string; type?: string; value: string }>) ?? []) {
        locals.push(noAddresses(`${v.name}${v.type ? ` (${v.type})` : ""} = ${v.value}`));
      }
    }
  }
  return {
    where: top ? `${rel(top.source?.path, top.source?.name)}:${top.line} in ${top.name}` : "?",
    frames: frames.map((f) => `${f.name} at ${rel(f.source?.path, f.source?.name)}:${f.line}`),
    locals,
    cut: [],
  };
}

/** Runs the program directly: the stops after the launch and after each step, until it ends. */
async function runDirect(p: DebugProgram, workspace: string, steps: readonly Step[]): Promise<Array<Stop | "ended">> {
  const dap = await startDirect(p, workspace);
  const scratch = mkdtempSync(join(tmpdir(), "enclave-fid-dlv-"));
  const stops: Array<Stop | "ended"> = [];
  try {
    await dap.request("initialize", {
      clientID: "fidelity",
      adapterID: p.adapter,
      linesStartAt1: true,
      columnsStartAt1: true,
      pathFormat: "path",
      supportsVariableType: true,
    });
    const initialized = dap.next((m) => m.event === "initialized", 60_000);
    const firstStop = dap.next((m) => m.event === "stopped" || m.event === "terminated", 120_000);
    const launched = dap.request("launch", launchArgs(p, workspace, scratch), 180_000);
    await initialized;
    await dap.request("setBreakpoints", { source: { path: join(workspace, p.source) }, breakpoints: p.lines.map((line) => ({ line })) });
    await dap.request("configurationDone", {});
    await launched;
    let ev = await firstStop;
    for (let i = 0; ; i++) {
      if (!ev || ev.event !== "stopped") {
        stops.push("ended");
        break;
      }
      const threadId = Number(ev.body?.threadId ?? 1);
      stops.push(await directStop(dap, threadId, workspace));
      const step = steps[i];
      if (!step) break;
      const command = { continue: "continue", step_over: "next", step_in: "stepIn", step_out: "stepOut" }[step];
      const next = dap.next((m) => m.event === "stopped" || m.event === "terminated" || m.event === "exited", 60_000);
      await dap.request(command, { threadId });
      ev = await next;
      if (ev?.event === "exited") ev = await dap.next((m) => m.event === "terminated", 10_000).then(() => undefined);
    }
  } finally {
    await dap.request("disconnect", { terminateDebuggee: true }, 5_000).catch(() => undefined);
    dap.kill();
    rmSync(scratch, { recursive: true, force: true });
  }
  return stops;
}

// ---- Enclave ----------------------------------------------------------------------------------

async function enclaveStop(call: (args: Record<string, unknown>) => Promise<string>, status: string): Promise<Stop | "ended"> {
  const at = /is stopped (?:on (?:an uncaught|a raised|an) exception )?at (\S+):(\d+) in (.+?)(?: \(.*\))?, thread \d+/.exec(status);
  if (!at) return "ended";
  const stack = await call({ op: "stack" });
  const frames = stack
    .split("\n")
    .map((l) => /^#\d+ (.+) at (.+):(\d+) {2}\(frame_id (\d+)\)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null);
  const cut: string[] = [];
  const locals: string[] = [];
  const top = frames[0];
  if (top) {
    const scopes = (await call({ op: "scopes", frame_id: Number(top[4]) })).split("\n");
    const scope = scopes.find((l) => /^locals: reference/i.test(l)) ?? scopes[0] ?? "";
    const ref = Number(/reference (\d+)/.exec(scope)?.[1] ?? 0);
    if (ref > 0) {
      for (const l of (await call({ op: "variables", reference: ref })).split("\n")) {
        if (/^\[\d+ more not shown/.test(l)) {
          cut.push(l);
          continue;
        }
        if (l === "no variables") continue;
        const value = l.replace(/ {2}\[reference \d+\]$/, "");
        if (/… \[cut at \d+ of \d+ characters\]$/.test(value)) cut.push(value);
        locals.push(noAddresses(value));
      }
    }
  }
  return {
    where: `${at[1]}:${at[2]} in ${at[3]}`,
    frames: frames.map((m) => `${m[1]} at ${m[2]}:${m[3]}`),
    locals,
    cut,
  };
}

async function runEnclave(fx: Fixture, runId: string, p: DebugProgram, steps: readonly Step[]): Promise<Array<Stop | "ended">> {
  const call = async (args: Record<string, unknown>): Promise<string> => {
    const r = await fx.client.callTool(runId, "debug", args);
    const text = resultText(r);
    if (r.isError) throw new Error(`debug ${JSON.stringify(args)}: ${text}`);
    return text;
  };
  await call({ op: "breakpoints", file: p.source, lines: p.lines });
  const stops: Array<Stop | "ended"> = [];
  try {
    let status = await call({ op: "launch", program: p.program, adapter: p.adapter });
    for (let i = 0; ; i++) {
      const stop = await enclaveStop(call, status);
      stops.push(stop);
      const step = steps[i];
      if (stop === "ended" || !step) break;
      status = await call({ op: step });
    }
  } finally {
    await fx.client.callTool(runId, "debug", { op: "terminate" });
    await call({ op: "breakpoints", file: p.source, lines: [] });
  }
  return stops;
}

// ---- comparison ---------------------------------------------------------------------------------

/** "agree", "value-cut" (Enclave cut a value or the children list, and says so), or undefined. */
export function classifyStop(enclave: Stop | "ended", direct: Stop | "ended"): string | undefined {
  if (enclave === "ended" || direct === "ended") return enclave === direct ? "agree" : undefined;
  if (enclave.where !== direct.where) return undefined;
  if (JSON.stringify(enclave.frames) !== JSON.stringify(direct.frames)) {
    // In an enclosure the program runs on the runtime image's C library, which has no debug
    // information (lldb names its start-up function ___lldb_unnamed_symbolN, with no source): the
    // program's own frames (those in the workspace) must be the same, the same number of frames below.
    const own = (f: string[]): string => JSON.stringify(f.filter((x) => / at dbg\//.test(x)));
    const agreed = classifyStop({ ...enclave, frames: direct.frames }, direct);
    if (enclave.frames.length === direct.frames.length && own(enclave.frames) === own(direct.frames) && agreed)
      return agreed === "agree" ? "system-frames" : agreed;
    return undefined;
  }
  if (JSON.stringify(enclave.locals) === JSON.stringify(direct.locals)) return "agree";
  if (enclave.cut.length === 0 || enclave.locals.length > direct.locals.length) return undefined;
  const ok = enclave.locals.every((v, i) => {
    const theirs = direct.locals[i] ?? "";
    const m = /^(.*)… \[cut at \d+ of \d+ characters\]$/s.exec(v);
    return m ? theirs.startsWith(m[1] ?? "") : v === theirs;
  });
  return ok ? "value-cut" : undefined;
}

export async function runProgram(fx: Fixture, runId: string, workspace: string, p: DebugProgram, steps: readonly Step[] = STEPS): Promise<ProgramRun> {
  // Separate processes on each side: both run at once.
  const [enclave, direct] = await Promise.all([runEnclave(fx, runId, p, steps), runDirect(p, workspace, steps)]);
  const n = Math.max(enclave.length, direct.length);
  const stops: ProgramRun["stops"] = [];
  for (let i = 0; i < n; i++) {
    const e = enclave[i] ?? "ended";
    const d = direct[i] ?? "ended";
    stops.push({ step: i === 0 ? "launch" : (steps[i - 1] ?? "?"), enclave: e, direct: d, verdict: classifyStop(e, d) ?? "unknown" });
  }
  return { adapter: p.adapter, stops };
}
