// make bench, growth: how host placement's cost grows with the number of conversations. One control
// plane (`enclave serve`, its own process, so its RSS is its own) is grown from one size to the next
// (never restarted from zero), each new conversation given a warm Python kernel (a cell run once), with
// a few conversations started at a time. At each size: memory per conversation (PSS of every process
// of its host sandbox, summed, and its memory cgroup's charge), the control plane's RSS, and the
// latency of `read` and of `eval 1+1` from CALLERS concurrent callers spread over all the
// conversations. Beside them, in the same run: ipykernel kernels driven by jupyter_client, grown the
// same way (jupyter_growth.py), their PSS and `1+1` latency.
//   ENCLAVE_BENCH_GROWTH_SIZES   sizes, ascending; "max" = as many as fit (default 10,100,300,max)
//   ENCLAVE_BENCH_GROWTH_MAX     what "max" is; unset: grown until the machine's available memory would
//                                fall below ENCLAVE_BENCH_GROWTH_RESERVE_MIB (2048), at most
//                                ENCLAVE_BENCH_GROWTH_CAP (see DEFAULT_CAP)
//   ENCLAVE_BENCH_GROWTH_PEER_MAX the most peer kernels (450)
//   ENCLAVE_BENCH_GROWTH_CALLS   calls of each kind per size (2000); ENCLAVE_BENCH_CALLERS (64)
//   ENCLAVE_BENCH_GROWTH_START_CONCURRENCY conversations (and peer kernels) started at once (3)
//   ENCLAVE_BENCH_CPU_PROF=DIR   the control plane writes a V8 CPU profile there when it stops
//   ENCLAVE_BENCH_HEAP_SNAPSHOT=DIR  and a heap snapshot there at each size
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { resultText } from "@enclave/client/control-plane-client.js";
import { hostPython } from "../helpers/host-python.js";
import { eventually } from "../helpers/wait.js";
import { type BenchRow, figures, row } from "./measure.js";
import { availableMiB, rssMiB, sandboxMemory } from "./sandbox-memory.js";
import { type ServedControlPlane, serveControlPlane } from "./served-control-plane.js";

const here = dirname(fileURLToPath(import.meta.url));
const num = (name: string, fallback: number): number => Number(process.env[name] || fallback);
/**
 * The most conversations "max" grows to when ENCLAVE_BENCH_GROWTH_MAX is unset: what a 2-core
 * machine starts and measures in the growth bench's share of `make bench` (about 15 minutes).
 */
export const DEFAULT_CAP = 800;
const FILE = "growth-read.txt";
const CONTENT = "a line of a small source file, read again and again\n".repeat(40);
const PEER_NAME = "ipykernel kernels driven by jupyter_client (host)";

/** The sizes asked for: numbers, and "max" (resolved while growing). */
export function growthSizes(spec = process.env.ENCLAVE_BENCH_GROWTH_SIZES || "10,100,300,max"): (number | "max")[] {
  return spec
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      if (s === "max") return "max" as const;
      const n = Number(s);
      if (!Number.isInteger(n) || n < 1) throw new Error(`ENCLAVE_BENCH_GROWTH_SIZES: ${s} is not a whole number of conversations or "max"`);
      return n;
    });
}

/** The measure name of a growth row: the size is in it, so each size is a row of its own. */
export const growthMeasure = (n: number, what: string): string => `growth, ${n} host conversations: ${what}`;

interface Measured {
  n: number;
  /** How many of the n were there at the size before (and have served its calls). */
  earlier: number;
  pss: number[];
  charge: number[];
  cpRss: number;
  cpRssAbove: number;
  /** The control plane's open file descriptors and threads. */
  cpFds: number;
  cpThreads: number;
  read: number[];
  eval: number[];
  growSeconds: number;
  /** Why growing stopped short of the size asked for, when a conversation failed to start. */
  stoppedBy?: string;
}

interface PeerMeasured {
  kernels: number;
  pss_mib: number[];
  latency_ms: number[];
  grow_s: number;
}

/** The control plane as its own process, with the profiling flags the environment asks for. */
function startControlPlane(dir: string): Promise<ServedControlPlane> {
  const nodeArgs: string[] = [];
  if (process.env.ENCLAVE_BENCH_CPU_PROF) nodeArgs.push("--cpu-prof", "--cpu-prof-dir", process.env.ENCLAVE_BENCH_CPU_PROF);
  if (process.env.ENCLAVE_BENCH_HEAP_SNAPSHOT) nodeArgs.push("--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${process.env.ENCLAVE_BENCH_HEAP_SNAPSHOT}`);
  // No spare host agent: every sandbox it holds is a conversation's, so each one counted is one
  // conversation (a spare is one more sandbox whatever N; the first-cell bench measures it).
  return serveControlPlane(dir, { ENCLAVE_HOST_SPARES: "0" }, nodeArgs);
}

/** Writes a heap snapshot of the control plane (ENCLAVE_BENCH_HEAP_SNAPSHOT) and waits until it is whole. */
async function heapSnapshot(cp: ServedControlPlane, dir: string): Promise<void> {
  const before = new Set(readdirSync(dir));
  cp.kill("SIGUSR2");
  let size = -1;
  let steady = 0;
  await eventually(
    async () => {
      const file = readdirSync(dir).find((f) => f.endsWith(".heapsnapshot") && !before.has(f));
      if (!file) return false;
      const now = statSync(join(dir, file)).size;
      // Whole once its size has stayed the same for a second.
      steady = now > 0 && now === size ? steady + 1 : 0;
      size = now;
      return steady >= 10;
    },
    "the control plane's heap snapshot",
    300_000,
  );
}

/**
 * `callers` callers, `calls` calls in all: caller c's k-th call goes to conversation (c + k·callers)
 * mod n, so every conversation is called and calls to one may overlap, as a busy machine's would.
 */
async function concurrentCalls(n: number, callers: number, calls: number, call: (conversation: number) => Promise<void>): Promise<number[]> {
  const perCaller = Math.max(1, Math.floor(calls / callers));
  const out: number[] = [];
  await Promise.all(
    Array.from({ length: callers }, async (_, c) => {
      for (let k = 0; k < perCaller; k++) {
        const s = performance.now();
        await call((c + k * callers) % n);
        out.push(performance.now() - s);
      }
    }),
  );
  return out;
}

/** Our side: one control plane grown through the sizes. */
async function ours(sizes: (number | "max")[], cap: number, reserveMiB: number): Promise<Measured[]> {
  const dir = mkdtempSync(join(tmpdir(), "enclave-growth-"));
  const heapDir = process.env.ENCLAVE_BENCH_HEAP_SNAPSHOT;
  if (heapDir) mkdirSync(heapDir, { recursive: true });
  const callers = num("ENCLAVE_BENCH_CALLERS", 64);
  const calls = num("ENCLAVE_BENCH_GROWTH_CALLS", 2000);
  const concurrency = num("ENCLAVE_BENCH_GROWTH_START_CONCURRENCY", 3);
  let cp: ServedControlPlane | undefined;
  try {
    cp = await startControlPlane(dir);
    const { client } = cp;
    const { pid } = cp;
    await new Promise((r) => setTimeout(r, 2_000));
    const idleRss = rssMiB(pid);
    const runs: string[] = [];
    const available0 = availableMiB();
    const out: Measured[] = [];
    let full = false;
    let stoppedBy: string | undefined;
    for (const size of sizes) {
      const earlier = runs.length;
      const target = size === "max" ? cap : Math.min(size, cap);
      if (full || target <= runs.length) continue;
      const t0 = performance.now();
      let inFlight = 0;
      const start = async (i: number): Promise<void> => {
        const id = `growth-${i}`;
        const conv = await client.createConversation(id);
        writeFileSync(join(conv.workspacePath, FILE), CONTENT);
        const run = (await client.openRun(id, { approvalPolicy: "never" })).id;
        const r = await client.callTool(run, "eval", { description: "warm the kernel for the growth bench", language: "python", code: "x = 1\nx + 1" });
        if (r.isError || !resultText(r).includes("2")) throw new Error(`conversation ${i}'s kernel did not answer its cell: ${resultText(r)}`);
        runs.push(run);
      };
      let next = runs.length;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (!full && next < target) {
            // What each conversation has cost the machine so far (a first guess of 100 MiB), for
            // this start and those in flight: none is started that would eat into the reserve.
            const made = next;
            const each = Math.max(50, made > 0 ? (available0 - availableMiB()) / made : 100);
            if (availableMiB() - each * (inFlight + 1) < reserveMiB) {
              full = true;
              break;
            }
            const i = next++;
            inFlight += 1;
            try {
              await start(i);
            } catch (err) {
              // What stops N from growing is a finding: the sizes so far are measured, and the row says why.
              stoppedBy ??= err instanceof Error ? err.message : String(err);
              full = true;
            } finally {
              inFlight -= 1;
            }
          }
        }),
      );
      const n = runs.length;
      if (n === 0) throw new Error(`no host conversation started: ${stoppedBy ?? `less than ${reserveMiB} MiB would be left available`}`);
      const growSeconds = (performance.now() - t0) / 1000;
      process.stderr.write(`bench: growth: ${n} host conversations (${growSeconds.toFixed(0)} s to grow)\n`);
      await new Promise((r) => setTimeout(r, 3_000));
      const mem = sandboxMemory(pid);
      if (mem.pss.length !== n && !stoppedBy) throw new Error(`found ${mem.pss.length} host sandboxes of the control plane for ${n} conversations`);
      const cpRss = rssMiB(pid);
      const cpFds = readdirSync(`/proc/${pid}/fd`).length;
      const cpThreads = readdirSync(`/proc/${pid}/task`).length;
      const read = async (c: number): Promise<void> => {
        const r = await client.callTool(runs[c] as string, "read", { path: FILE });
        if (r.isError) throw new Error(`read failed: ${resultText(r)}`);
      };
      const evalCall = async (c: number): Promise<void> => {
        const r = await client.callTool(runs[c] as string, "eval", { description: "a timed cell of the growth bench", language: "python", code: "1+1" });
        if (r.isError || !resultText(r).includes("2")) throw new Error(`eval failed: ${resultText(r)}`);
      };
      // Every conversation answers each kind once untimed first.
      const everyOne = Math.ceil(n / callers) * callers;
      await concurrentCalls(n, callers, everyOne, read);
      await concurrentCalls(n, callers, everyOne, evalCall);
      const readMs = await concurrentCalls(n, callers, calls, read);
      const evalMs = await concurrentCalls(n, callers, calls, evalCall);
      process.stderr.write(`bench: growth: ${n} measured (${((performance.now() - t0) / 1000 - growSeconds).toFixed(0)} s)\n`);
      out.push({
        n,
        earlier,
        pss: mem.pss,
        charge: mem.charge,
        cpRss,
        cpRssAbove: (cpRss - idleRss) / n,
        cpFds,
        cpThreads,
        read: readMs,
        eval: evalMs,
        growSeconds,
      });
      if (heapDir) await heapSnapshot(cp, heapDir);
    }
    return out;
  } finally {
    const t = performance.now();
    if (cp) await cp.stop();
    process.stderr.write(`bench: growth: the control plane stopped in ${((performance.now() - t) / 1000).toFixed(0)} s\n`);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The peer, at the same sizes as far as its cap. */
function peer(sizes: number[], reserveMiB: number): Promise<Map<number, PeerMeasured>> {
  const script = join(here.replace(/\/dist\/test\/bench$/, "/test/bench"), "jupyter_growth.py");
  const args = [
    script,
    sizes.join(","),
    String(num("ENCLAVE_BENCH_GROWTH_CALLS", 2000)),
    String(num("ENCLAVE_BENCH_CALLERS", 64)),
    String(reserveMiB),
    String(num("ENCLAVE_BENCH_GROWTH_START_CONCURRENCY", 3)),
  ];
  return new Promise((resolve, reject) => {
    execFile(hostPython(), args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`the Jupyter peer failed: ${err.message}\n${stderr}`));
      const byRequested = new Map<number, PeerMeasured>();
      stdout
        .split("\n")
        .filter(Boolean)
        .forEach((line, i) => byRequested.set(sizes[i] as number, JSON.parse(line) as PeerMeasured));
      resolve(byRequested);
    });
  });
}

export async function growthRows(): Promise<BenchRow[]> {
  process.env.ENCLAVE_PYTHON = hostPython();
  const sizes = growthSizes();
  const reserve = num("ENCLAVE_BENCH_GROWTH_RESERVE_MIB", 2048);
  const cap = num("ENCLAVE_BENCH_GROWTH_MAX", 0) || num("ENCLAVE_BENCH_GROWTH_CAP", DEFAULT_CAP);
  const peerCap = num("ENCLAVE_BENCH_GROWTH_PEER_MAX", 450);
  const callers = num("ENCLAVE_BENCH_CALLERS", 64);
  const measured = await ours(sizes, cap, reserve);
  const peerSizes = [...new Set(measured.map((m) => Math.min(m.n, peerCap)))];
  const t0 = performance.now();
  const peers = await peer(peerSizes, reserve);
  for (const p of peers.values()) process.stderr.write(`bench: growth: ${p.kernels} peer kernels (${p.grow_s.toFixed(0)} s to grow)\n`);
  process.stderr.write(`bench: growth: the peer took ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
  const rows: BenchRow[] = [];
  for (const m of measured) {
    const p = peers.get(Math.min(m.n, peerCap));
    const peerName = p ? `${p.kernels} ${PEER_NAME}` : "";
    const beside = (samples: number[] | undefined): { name: string; samples: number[] } | undefined => (p && samples ? { name: peerName, samples } : undefined);
    // Those of the size before have served its calls, and their agents hold more heap for it (see README.md).
    const split = m.earlier
      ? `; median of the ${m.n - m.earlier} started for this size ${figures(m.pss.slice(m.earlier)).median.toFixed(1)}, of the ${m.earlier} before (which served the earlier sizes' calls) ${figures(m.pss.slice(0, m.earlier)).median.toFixed(1)}`
      : "";
    const stopped = m.stoppedBy ? `; growing stopped here: a conversation failed to start (${m.stoppedBy.slice(0, 200)})` : "";
    const note = `${m.pss.length} host sandboxes, measured before this size's calls${split}; grown to this size in ${m.growSeconds.toFixed(0)} s${stopped}`;
    rows.push(
      row(growthMeasure(m.n, "memory per conversation, PSS"), m.pss, beside(p?.pss_mib), { unit: "MiB", digits: 1, note }),
      row(growthMeasure(m.n, "memory per conversation, cgroup charge"), m.charge, undefined, { unit: "MiB", digits: 1 }),
      row(growthMeasure(m.n, "control-plane RSS"), [m.cpRss], undefined, {
        unit: "MiB",
        digits: 0,
        note: `${m.cpFds} file descriptors open, ${m.cpThreads} threads`,
      }),
      row(growthMeasure(m.n, "control-plane RSS above its idle start, per conversation"), [m.cpRssAbove], undefined, { unit: "MiB", digits: 2 }),
      row(growthMeasure(m.n, `read latency, ${callers} callers`), m.read, undefined, { digits: 2 }),
      row(growthMeasure(m.n, `eval \`1+1\` latency, python, ${callers} callers`), m.eval, beside(p?.latency_ms), { digits: 1 }),
    );
  }
  const largest = measured.at(-1);
  if (largest) process.stderr.write(`bench: growth: largest size measured ${largest.n}; PSS median ${figures(largest.pss).median.toFixed(1)} MiB\n`);
  return rows;
}
