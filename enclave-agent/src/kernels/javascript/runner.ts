// Enclave's JavaScript kernel: a long-lived Node process running cells on node:vm in its own global
// scope. Cells arrive as frames on fd 4; displays, bridge calls and "done" leave as frames on fd 3,
// each after a sync marker on fds 1 and 2; console output stays raw on fds 1 and 2.
import { AsyncLocalStorage } from "node:async_hooks";
import { writeFileSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { Socket } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { inspect } from "node:util";
import vm from "node:vm";
import type { AgentFrame, KernelFrame, MimeFrameItem } from "../kernel-frames.js";
import { CellStacks } from "./cell-stack.js";
import { importFromCell } from "./module-loader.js";
import { CellPositions, CellSyntaxError, IMPORT_FN, rewriteCell } from "./rewrite-cell.js";

type FrameOut = KernelFrame extends infer F ? (F extends { seq: number } ? Omit<F, "seq"> : never) : never;

const token = process.env.ENCLAVE_KERNEL_TOKEN ?? "";
delete process.env.ENCLAVE_KERNEL_TOKEN;
// The agent kills a kernel whose frame line passes this; no frame this runner sends does (a display
// too large is replaced by a note, an error's text is cut, a bridge call too large fails).
const maxFrameBytes = Number(process.env.ENCLAVE_KERNEL_FRAME_BYTES) || 64 * 1024 * 1024;
delete process.env.ENCLAVE_KERNEL_FRAME_BYTES;
const FRAME_SLACK = 64 * 1024;
let seq = 0;

class FrameTooLarge extends Error {}

function encode(frame: FrameOut): Buffer {
  return Buffer.from(`${JSON.stringify({ ...frame, seq: seq + 1 })}\n`, "utf8");
}

function cut(text: string, room: number): string {
  return text.length <= room ? text : `${text.slice(0, room / 2)}\n[… ${text.length - room} characters cut …]\n${text.slice(-room / 2)}`;
}

/** The frame's line, made to fit under the agent's limit. */
function fit(frame: FrameOut): Buffer {
  const line = encode(frame);
  if (line.length <= maxFrameBytes) return line;
  if (frame.t === "call") {
    throw new FrameTooLarge(`the call's arguments make a frame of ${line.length} bytes, over the ${maxFrameBytes} bytes a bridge call can carry`);
  }
  if (frame.t === "display") {
    const text = `[a display of ${line.length} bytes was not sent: over the ${Math.floor(maxFrameBytes / 1024 ** 2)} MiB one display may take]`;
    return encode({ ...frame, items: [{ mime: "text/plain", text }] });
  }
  if (frame.t === "done") {
    // JSON may escape one UTF-16 unit as 6 bytes.
    const room = Math.max(1024, Math.floor((maxFrameBytes - FRAME_SLACK) / 12));
    return encode({ ...frame, evalue: cut(frame.evalue, room), traceback: cut(frame.traceback, room) });
  }
  return line;
}

function writeAll(fd: number, data: Buffer): void {
  let off = 0;
  while (off < data.length) {
    try {
      off += writeSync(fd, data, off);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "EAGAIN") continue;
      if (fd !== 3) return; // a closed stdout must not stop frames
      throw err;
    }
  }
}

function send(frame: FrameOut): void {
  const line = fit(frame);
  seq += 1;
  const marker = Buffer.from(`\0ENCLAVE-SYNC:${token}:${seq}\0`, "latin1");
  writeAll(1, marker);
  writeAll(2, marker);
  writeAll(3, line);
}

// -- display -----------------------------------------------------------------------------------
const BUNDLE = Symbol.for("enclave.mimebundle");
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

/** The cell-scope store async hooks leave on every promise a cell makes: the runner's, not the user's. */
const CELL_STORE = /,(\s*)\[Symbol\(kResourceStore\)\]: '[^'\n]*'/g;

/** A value as Node's REPL writes it (80 columns), but nested to depth 4 where the REPL stops at 2. */
function show(value: unknown, asEcho: boolean): string {
  if (!asEcho && typeof value === "string") return value;
  return inspect(value, { depth: 4, colors: false, maxArrayLength: 100, maxStringLength: 10_000, breakLength: 80 }).replace(CELL_STORE, "");
}

function bundleOf(value: unknown, echo: boolean): MimeFrameItem[] {
  const v = value as { [BUNDLE]?: () => Record<string, string | Uint8Array> } | null;
  if (v && typeof v === "object" && typeof v[BUNDLE] === "function") {
    return Object.entries(v[BUNDLE]()).map(([mime, data]) =>
      typeof data === "string" ? { mime, text: data } : { mime, b64: Buffer.from(data).toString("base64") },
    );
  }
  if (value instanceof Uint8Array && Buffer.from(value.subarray(0, 4)).equals(PNG_MAGIC)) {
    return [
      { mime: "image/png", b64: Buffer.from(value).toString("base64") },
      { mime: "text/plain", text: `<PNG image, ${value.length} bytes>` },
    ];
  }
  return [{ mime: "text/plain", text: show(value, echo) }];
}

function rich(bundle: Record<string, string | Uint8Array>): object {
  return { [BUNDLE]: () => bundle, [inspect.custom]: () => bundle["text/plain"] ?? `<${Object.keys(bundle).join(", ")}>` };
}

function display(...values: unknown[]): void {
  for (const v of values) send({ t: "display", echo: false, items: bundleOf(v, false) });
}
display.html = (html: string) => display(rich({ "text/html": html, "text/plain": html }));
display.markdown = (md: string) => display(rich({ "text/markdown": md }));
display.svg = (svg: string) => display(rich({ "image/svg+xml": svg, "text/plain": "<SVG image>" }));
display.png = (png: Uint8Array) => display(rich({ "image/png": png, "text/plain": `<PNG image, ${png.length} bytes>` }));
display.bundle = (bundle: Record<string, string | Uint8Array>) => display(rich(bundle));

// -- the bridge --------------------------------------------------------------------------------
class ToolError extends Error {
  constructor(
    readonly tool: string,
    readonly code: string,
    readonly detail: string,
  ) {
    super(`tool \`${tool}\` failed (${code}): ${detail}`);
    this.name = "ToolError";
  }
}

const pendingCalls = new Map<string, { resolve: (text: string) => void; reject: (err: Error) => void; tool: string }>();
let nextCall = 0;
/**
 * The cell a piece of running code belongs to: each cell runs inside cellScope.run(its id), and
 * timers, promises and callbacks it sets up carry that id with them. A bridge call says which cell
 * it belongs to; the agent refuses one whose cell is not the one running now, so a timer left behind
 * by a finished cell cannot act with a later cell's tools.
 */
const cellScope = new AsyncLocalStorage<string>();

/** Calls one of this run's tools; resolves with its text result, rejects with a ToolError. */
function tool(name: string, args: Record<string, unknown> = {}): Promise<string> {
  if (typeof name !== "string" || !name) return Promise.reject(new TypeError('tool() needs the tool\'s name, for example tool("read", { path: "README.md" })'));
  if (args === null || typeof args !== "object" || Array.isArray(args)) return Promise.reject(new TypeError("tool() arguments must be an object"));
  const id = `b${++nextCall}`;
  const cell = cellScope.getStore() ?? "";
  return new Promise((resolve, reject) => {
    pendingCalls.set(id, { resolve, reject, tool: name });
    try {
      send({ t: "call", id, tool: name, args: JSON.stringify(args), cell });
    } catch (err) {
      pendingCalls.delete(id);
      if (!(err instanceof FrameTooLarge)) throw err;
      reject(new ToolError(name, "too_large", err.message));
    }
  });
}
tool.Error = ToolError;

/** A tool() listing entry: what the cell may call. */
interface CallableTool {
  name: string;
  tier: string;
  description: string;
  input_schema: Record<string, unknown>;
}

/**
 * What this cell may call with tool(), Enclave's tools and the harness's, as its surface allows.
 * The control plane answers the reserved name "@tools" itself; no tool can have it.
 */
async function tools(): Promise<CallableTool[]> {
  return JSON.parse((await tool("@tools", {})) || "[]") as CallableTool[];
}

// -- cells -------------------------------------------------------------------------------------
interface ActiveCell {
  id: string;
  name: string;
  settled: boolean;
  /** Resolves when the cell is settled, by finishing or by an interrupt. */
  ended: Promise<void>;
  end: () => void;
}
let active: ActiveCell | undefined;

const stacks = new CellStacks([import.meta.url, fileURLToPath(import.meta.url)]);
stacks.install();

/** An error as Node's REPL shows it: its stack (the user's frames only), own properties, cause. */
function shownError(err: unknown): string {
  return inspect(err, { depth: 2, colors: false, breakLength: 80 });
}

/** V8's own words for a cell that does not parse, pointing at the cell's line (acorn's when V8 has
 * none: code it only refuses for a top-level await, which a cell may use). */
function syntaxError(code: string, name: string, parsed: CellSyntaxError): { message: string; traceback: string } {
  const attempts = [() => new vm.Script(code, { filename: name })];
  if (/\bawait\b/.test(code)) attempts.push(() => new vm.Script(`(async () => {\n${code}\n})`, { filename: name, lineOffset: -1 }));
  const lineCount = code.split("\n").length;
  for (const attempt of attempts) {
    try {
      attempt();
    } catch (err) {
      // V8's SyntaxError carries no code: its text is the only sign that top-level await was the problem.
      // eslint-disable-next-line enclave/no-message-branching -- V8 text, not an Enclave error
      if (!(err instanceof SyntaxError) || /await is only valid/.test(err.message)) continue;
      const head = (err.stack ?? "").split(/\n\s+at /)[0] ?? "";
      const at = new RegExp(`^${name.replace(/[<>]/g, "\\$&")}:(\\d+)\n`).exec(head);
      if (!at || Number(at[1]) > lineCount) continue;
      return { message: err.message, traceback: `${head.trimEnd()}\n` };
    }
  }
  const message = parsed.message.replace(/ \(\d+:\d+\)$/, "");
  const line = code.split("\n")[parsed.line - 1] ?? "";
  return { message, traceback: `${name}:${parsed.line}\n${line}\n${" ".repeat(parsed.column)}^\n\nSyntaxError: ${message}\n` };
}

function errorFrame(cell: ActiveCell, err: unknown, code: string): FrameOut {
  if (err instanceof CellSyntaxError) {
    const { message, traceback } = syntaxError(code, cell.name, err);
    return { t: "done", id: cell.id, status: "error", ename: "SyntaxError", evalue: message, traceback };
  }
  const shown = shownError(err);
  if (err instanceof Error) return { t: "done", id: cell.id, status: "error", ename: err.name, evalue: err.message, traceback: `${shown}\n` };
  return { t: "done", id: cell.id, status: "error", ename: "Uncaught", evalue: shown, traceback: `Uncaught ${shown}\n` };
}

function finish(cell: ActiveCell, frame: FrameOut): void {
  if (cell.settled) return;
  cell.settled = true;
  if (active === cell) active = undefined;
  send(frame);
  cell.end();
}

async function runCell(frame: Extract<AgentFrame, { t: "execute" }>): Promise<void> {
  let end = (): void => undefined;
  const ended = new Promise<void>((resolve) => {
    end = resolve;
  });
  const cell: ActiveCell = { id: frame.id, name: `<cell ${frame.cell}>`, settled: false, ended, end };
  active = cell;
  // An interrupted cell may never finish (a promise that never settles): the next cell must not wait on it.
  await Promise.race([execute(cell, frame), ended]);
}

/** The cell compiled: rewritten, or as written when V8 refuses the rewriting (as Node's REPL runs it). */
function compile(cell: ActiveCell, code: string): { script: vm.Script; echoes: boolean; completion: boolean } {
  const { source, echoes, positions } = rewriteCell(code);
  try {
    const script = new vm.Script(source, { filename: cell.name });
    stacks.remember(cell.name, positions);
    return { script, echoes, completion: false };
  } catch {
    // The rewritten source must never reach the user: its errors are not theirs.
    const script = new vm.Script(code, { filename: cell.name });
    stacks.remember(cell.name, CellPositions.identity(code));
    return { script, echoes: true, completion: true };
  }
}

async function execute(cell: ActiveCell, frame: Extract<AgentFrame, { t: "execute" }>): Promise<void> {
  try {
    let compiled: ReturnType<typeof compile>;
    try {
      compiled = compile(cell, frame.code);
    } catch (err) {
      if (err instanceof SyntaxError && !(err instanceof CellSyntaxError)) throw new CellSyntaxError(err.message, 1, 0);
      throw err;
    }
    const { script, echoes, completion } = compiled;
    const ran = await cellScope.run(cell.id, () => script.runInThisContext({ breakOnSigint: true, displayErrors: false }));
    const result = completion ? { value: ran } : (ran as { value: unknown } | undefined);
    if (cell.settled) return;
    if (echoes && result && result.value !== undefined) send({ t: "display", echo: true, items: bundleOf(result.value, true) });
    finish(cell, { t: "done", id: cell.id, status: "ok", ename: "", evalue: "", traceback: "" });
  } catch (err) {
    finish(cell, errorFrame(cell, err, frame.code));
  }
}

// Work a cell left behind (a timer, a promise nobody awaited) must not bring the kernel down.
function background(kind: string) {
  return (err: unknown): void => {
    process.stderr.write(`${kind}: ${shownError(err)}\n`);
  };
}
process.on("uncaughtException", background("Uncaught exception"));
process.on("unhandledRejection", background("Unhandled promise rejection"));
// A cell waiting on a promise is stopped here; one stuck in synchronous code is stopped by
// breakOnSigint; one stuck in code after an await cannot be, and the agent kills the kernel.
process.on("SIGINT", () => {
  const cell = active;
  if (!cell) return;
  finish(cell, {
    t: "done",
    id: cell.id,
    status: "error",
    ename: "Interrupted",
    evalue: "the cell was interrupted (SIGINT)",
    traceback: "Interrupted: the cell was interrupted (SIGINT)\n",
  });
});

// -- globals of the cells ----------------------------------------------------------------------
Object.assign(globalThis, {
  display,
  tool,
  tools,
  ToolError,
  require: createRequire(join(process.cwd(), "[cell].js")),
  [IMPORT_FN]: importFromCell,
});

try {
  writeFileSync("/proc/self/oom_score_adj", "1000"); // under memory pressure, the kernel goes first
} catch {
  // Not Linux, or not allowed: fine.
}

// -- frames in ---------------------------------------------------------------------------------
const queue: Array<Extract<AgentFrame, { t: "execute" }>> = [];
let running = false;

async function drain(): Promise<void> {
  if (running) return;
  running = true;
  while (queue.length) await runCell(queue.shift() as Extract<AgentFrame, { t: "execute" }>);
  running = false;
}

function receive(frame: AgentFrame): void {
  if (frame.t === "execute") {
    queue.push(frame);
    void drain();
  } else if (frame.t === "reply") {
    const call = pendingCalls.get(frame.id);
    if (!call) return;
    pendingCalls.delete(frame.id);
    if (frame.ok) call.resolve(frame.text);
    else call.reject(new ToolError(call.tool, frame.code || "failed", frame.text));
  }
}

const input = new Socket({ fd: 4, readable: true, writable: false });
let buffered = "";
input.setEncoding("utf8");
input.on("data", (chunk: string) => {
  buffered += chunk;
  for (let nl = buffered.indexOf("\n"); nl >= 0; nl = buffered.indexOf("\n")) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    if (line.trim()) receive(JSON.parse(line) as AgentFrame);
  }
});
// The agent is gone: nobody will send a cell again.
input.on("end", () => process.exit(0));
input.on("error", () => process.exit(0));

send({ t: "ready", pid: process.pid, interpreter: `node ${process.version} (${process.execPath})` });
