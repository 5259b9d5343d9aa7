// Debug figures for `make bench`: launch-to-first-stop and a step round trip through the whole path
// (control plane → agent → debugpy), beside a peer: the same adapter driven directly by a minimal
// DAP client written here (no gRPC, no agent), measured in the same run on the same program, making
// the same DAP requests per stop (the step, then the top frame that says where it stopped).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resultText } from "../../control-plane/src/client/control-plane-client.js";
import type { Fixture } from "../helpers/control-plane-fixture.js";

const PROGRAM = `total = 0
for i in range(1000000):
    total += i
print(total)
`;
const BREAK_LINE = 3;
const LAUNCHES = 10;
const STEPS = 50;

type Stats = { median: number; p99: number };

function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
  return { median: at(0.5), p99: at(0.99) };
}

function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** The peer: a bare DAP client over the adapter's stdio, in the same order the agent uses. */
class MiniDap {
  private seq = 1;
  private buf = Buffer.alloc(0);
  private readonly waiting = new Map<number, (m: Record<string, unknown>) => void>();
  private eventWaiters: Array<{ name: string; resolve: () => void }> = [];
  readonly child: ChildProcess;

  constructor(argv: string[]) {
    this.child = spawn(argv[0] ?? "", argv.slice(1), { stdio: ["pipe", "pipe", "ignore"] });
    this.child.stdout?.on("data", (d: Buffer) => this.read(d));
  }

  private read(d: Buffer): void {
    this.buf = Buffer.concat([this.buf, d]);
    for (;;) {
      const end = this.buf.indexOf("\r\n\r\n");
      if (end < 0) return;
      const len = Number(/Content-Length: (\d+)/i.exec(this.buf.subarray(0, end).toString())?.[1]);
      if (this.buf.length < end + 4 + len) return;
      const msg = JSON.parse(this.buf.subarray(end + 4, end + 4 + len).toString()) as Record<string, unknown>;
      this.buf = this.buf.subarray(end + 4 + len);
      if (msg.type === "response") this.waiting.get(msg.request_seq as number)?.(msg);
      if (msg.type === "event") {
        const hit = this.eventWaiters.filter((w) => w.name === msg.event);
        this.eventWaiters = this.eventWaiters.filter((w) => w.name !== msg.event);
        for (const w of hit) w.resolve();
      }
    }
  }

  request(command: string, args: unknown): Promise<Record<string, unknown>> {
    const seq = this.seq++;
    const body = Buffer.from(JSON.stringify({ seq, type: "request", command, arguments: args }));
    this.child.stdin?.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
    return new Promise((resolve) => this.waiting.set(seq, resolve));
  }

  event(name: string): Promise<void> {
    return new Promise((resolve) => this.eventWaiters.push({ name, resolve }));
  }
}

async function peerRun(dir: string, python: string): Promise<{ launch: number; steps: number[] }> {
  const t0 = now();
  const dap = new MiniDap([python, "-m", "debugpy.adapter"]);
  await dap.request("initialize", { clientID: "peer", adapterID: "debugpy", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" });
  const initialized = dap.event("initialized");
  const stopped = dap.event("stopped");
  const launched = dap.request("launch", { program: join(dir, "prog.py"), cwd: dir, console: "internalConsole", justMyCode: true, python: [python] });
  await initialized;
  await dap.request("setBreakpoints", { source: { path: join(dir, "prog.py") }, breakpoints: [{ line: BREAK_LINE }] });
  await dap.request("configurationDone", {});
  await launched;
  await stopped;
  // The same work ours does per stop: the top frame, to say where it stopped.
  await dap.request("stackTrace", { threadId: 1, startFrame: 0, levels: 1 });
  const launch = now() - t0;
  const steps: number[] = [];
  for (let i = 0; i < STEPS; i++) {
    const s0 = now();
    const next = dap.event("stopped");
    await dap.request("next", { threadId: 1 });
    await next;
    await dap.request("stackTrace", { threadId: 1, startFrame: 0, levels: 1 });
    steps.push(now() - s0);
  }
  await dap.request("disconnect", { terminateDebuggee: true });
  dap.child.kill("SIGKILL");
  return { launch, steps };
}

async function oursRun(fx: Fixture, runId: string): Promise<{ launch: number; steps: number[] }> {
  const call = async (args: Record<string, unknown>): Promise<string> => {
    const r = await fx.client.callTool(runId, "debug", args);
    if (r.isError) throw new Error(`debug ${JSON.stringify(args)}: ${resultText(r)}`);
    return resultText(r);
  };
  const t0 = now();
  const launched = await call({ op: "launch", program: "prog.py" });
  const launch = now() - t0;
  if (!/stopped at prog\.py:3/.test(launched)) throw new Error(`bench launch did not stop at the breakpoint: ${launched}`);
  const steps: number[] = [];
  for (let i = 0; i < STEPS; i++) {
    const s0 = now();
    await call({ op: "step_over" });
    steps.push(now() - s0);
  }
  await call({ op: "terminate" });
  return { launch, steps };
}

function row(label: string, ours: number[], peerLabel: string, peer: number[]): string[] {
  const o = stats(ours);
  const p = peer.length ? stats(peer) : undefined;
  return [label, o.median.toFixed(1), o.p99.toFixed(1), peerLabel, p ? p.median.toFixed(1) : "", p ? p.p99.toFixed(1) : ""];
}

/** Rows for run-all's table; uses host placement and, when `enclosed` is given, that conversation too. */
export async function debugBenchRows(fx: Fixture, enclosed?: string): Promise<string[][]> {
  const dir = mkdtempSync(join(tmpdir(), "enclave-bench-debug-"));
  try {
    writeFileSync(join(dir, "pyproject.toml"), "[project]\nname = \"bench\"\n");
    writeFileSync(join(dir, "prog.py"), PROGRAM);
    await fx.client.createConversation("bench-debug", dir);
    const runId = (await fx.client.openRun("bench-debug", { resources: ["debug"] })).id;
    await fx.client.callTool(runId, "debug", { op: "breakpoints", file: "prog.py", lines: [BREAK_LINE] });
    const adapters = resultText(await fx.client.callTool(runId, "debug", { op: "adapters" }));
    const python = /^debugpy: usable.*\n\s+(\S+) -m debugpy\.adapter/m.exec(adapters)?.[1];
    if (!python) throw new Error(`debugpy is not usable on the host: ${adapters}`);

    const ours = { launch: [] as number[], steps: [] as number[] };
    const peer = { launch: [] as number[], steps: [] as number[] };
    for (let i = 0; i < LAUNCHES; i++) {
      const o = await oursRun(fx, runId);
      ours.launch.push(o.launch);
      ours.steps.push(...o.steps);
      const p = await peerRun(dir, python);
      peer.launch.push(p.launch);
      peer.steps.push(...p.steps);
    }
    const rows = [
      row("debug launch-to-first-stop, debugpy, host (ms)", ours.launch, "direct DAP client, same adapter and requests", peer.launch),
      row("debug step_over round trip, debugpy, host (ms)", ours.steps, "direct DAP client, same adapter and requests", peer.steps),
    ];

    if (enclosed) {
      const encRun = (await fx.client.openRun(enclosed, { resources: ["workspace", "debug"] })).id;
      await fx.client.callTool(encRun, "write", { path: "pyproject.toml", content: "[project]\nname = \"bench\"\n" });
      await fx.client.callTool(encRun, "write", { path: "prog.py", content: PROGRAM });
      await fx.client.callTool(encRun, "debug", { op: "breakpoints", file: "prog.py", lines: [BREAK_LINE] });
      const enc = { launch: [] as number[], steps: [] as number[] };
      for (let i = 0; i < LAUNCHES; i++) {
        const o = await oursRun(fx, encRun);
        enc.launch.push(o.launch);
        enc.steps.push(...o.steps);
      }
      rows.push(row("debug launch-to-first-stop, debugpy, enclosure (ms)", enc.launch, "", []));
      rows.push(row("debug step_over round trip, debugpy, enclosure (ms)", enc.steps, "", []));
    }
    return rows;
  } finally {
    await fx.cp.deleteConversation("bench-debug").catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
