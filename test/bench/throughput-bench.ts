// Tool calls per second through the control plane: CALLERS concurrent callers over CONVERSATIONS
// conversations (host placement) each calling `read` on a small file, beside a bare grpc-js server
// reading the same files for the same callers. Each server runs as a child process, so its CPU time
// (utime + stime from /proc/PID/stat; the host agents are other processes and not counted) divided by
// the calls it served is its CPU per call. Rounds give the per-round figures their samples; every
// call's latency is a sample of the latency row.
// ENCLAVE_BENCH_CALLERS (64), ENCLAVE_BENCH_CONVERSATIONS (20), ENCLAVE_BENCH_CALLS (40 per caller
// per round), ENCLAVE_BENCH_ROUNDS (5).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { credentials, makeGenericClientConstructor } from "@grpc/grpc-js";
import { ControlPlaneClient, resultText } from "@enclave/client/control-plane-client.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { eventually } from "../helpers/wait.js";
import { BARE_READ_SERVICE } from "./bare-read-server.js";
import { cpuMs, stopChild } from "./served-control-plane.js";
import { type BenchRow, figures, row } from "./measure.js";

const here = dirname(fileURLToPath(import.meta.url));
const count = (name: string, fallback: number): number => Number(process.env[name] || fallback);
const TICK_MS = 1000 / 100; // USER_HZ: /proc reports CPU time in 1/100 s on Linux

/** CPU ms of every process below `pid` (its host agents and their sandboxes), not `pid` itself. */
function descendantsCpuMs(pid: number): number {
  const procs = new Map<number, { ppid: number; ms: number }>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      procs.set(Number(d), { ppid: Number(f[1]), ms: (Number(f[11]) + Number(f[12])) * TICK_MS });
    } catch {
      // gone meanwhile
    }
  }
  const below = new Set([pid]);
  let ms = 0;
  for (let grew = true; grew;) {
    grew = false;
    for (const [p, s] of procs) {
      if (below.has(p) || !below.has(s.ppid)) continue;
      below.add(p);
      ms += s.ms;
      grew = true;
    }
  }
  return ms;
}

/** This process's own CPU ms (the callers' client side). */
function selfCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const FILE = "bench-read.txt";
const CONTENT = "a line of a small source file, read again and again\n".repeat(40);

interface RoundFigures {
  latencies: number[];
  callsPerSecond: number;
  cpuPerCallMs: number;
  /** The callers' process (this one) and the server's descendants (the host agents), per call. */
  clientCpuPerCallMs: number;
  agentsCpuPerCallMs: number;
}

/** Runs `callers` loops of `calls` calls each; call(i) is caller i's call. */
async function round(pid: number, callers: number, calls: number, call: (caller: number) => Promise<void>): Promise<RoundFigures> {
  const latencies: number[] = [];
  const agents0 = descendantsCpuMs(pid);
  const client0 = selfCpuMs();
  const cpu0 = cpuMs(pid);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async (_, c) => {
      for (let k = 0; k < calls; k++) {
        const s = performance.now();
        await call(c);
        latencies.push(performance.now() - s);
      }
    }),
  );
  const wall = performance.now() - t0;
  const cpu = cpuMs(pid) - cpu0;
  const client = selfCpuMs() - client0;
  const agents = descendantsCpuMs(pid) - agents0;
  const total = callers * calls;
  return {
    latencies,
    callsPerSecond: (total / wall) * 1000,
    cpuPerCallMs: cpu / total,
    clientCpuPerCallMs: client / total,
    agentsCpuPerCallMs: agents / total,
  };
}

export async function throughputRows(): Promise<BenchRow[]> {
  const callers = count("ENCLAVE_BENCH_CALLERS", 64);
  const conversations = count("ENCLAVE_BENCH_CONVERSATIONS", 20);
  const calls = count("ENCLAVE_BENCH_CALLS", 40);
  const rounds = count("ENCLAVE_BENCH_ROUNDS", 5);
  const dir = mkdtempSync(join(tmpdir(), "enclave-throughput-"));
  const children: ChildProcess[] = [];
  try {
    // Ours: the control plane as its own process, host placement.
    const dataDir = join(dir, "data");
    const cpSocket = join(dir, "cp.sock");
    // ENCLAVE_BENCH_CPU_PROF=DIR: the control plane writes a V8 CPU profile there when it stops
    // (sampled every ENCLAVE_BENCH_CPU_PROF_INTERVAL µs, default 1000).
    const prof = process.env.ENCLAVE_BENCH_CPU_PROF
      ? ["--cpu-prof", "--cpu-prof-dir", process.env.ENCLAVE_BENCH_CPU_PROF, "--cpu-prof-interval", process.env.ENCLAVE_BENCH_CPU_PROF_INTERVAL || "1000"]
      : [];
    const cp = spawn(process.execPath, [...prof, join(repoRoot, "control-plane", "dist", "src", "cli", "main.js"), "serve"], {
      env: { ...process.env, ENCLAVE_DATA_DIR: dataDir, ENCLAVE_LISTEN: `unix://${cpSocket}` },
      stdio: ["ignore", "ignore", "inherit"],
    });
    children.push(cp);
    const client = new ControlPlaneClient(`unix://${cpSocket}`);
    await eventually(
      async () =>
        client.listConversations().then(
          () => true,
          () => false,
        ),
      "the control plane to serve",
      60_000,
    );
    const runs: string[] = [];
    for (let i = 0; i < conversations; i++) {
      const conv = await client.createConversation(`tp-${i}`);
      writeFileSync(join(conv.workspacePath, FILE), CONTENT);
      runs.push((await client.openRun(`tp-${i}`, { approvalPolicy: "never" })).id);
    }
    const ourCall = async (c: number): Promise<void> => {
      const r = await client.callTool(runs[c % conversations] as string, "read", { path: FILE });
      if (r.isError) throw new Error(`read failed: ${resultText(r)}`);
    };
    // Every conversation's host agent started and warm before anything is timed.
    for (let i = 0; i < conversations; i++) await ourCall(i);
    await round(cp.pid as number, callers, 5, ourCall);
    const ours: RoundFigures[] = [];
    for (let r = 0; r < rounds; r++) ours.push(await round(cp.pid as number, callers, calls, ourCall));
    client.close();
    await stopChild(cp);

    // The peer: a bare grpc-js server reading the same files (copied into a folder of its own).
    const root = join(dir, "bare");
    for (let i = 0; i < conversations; i++) {
      mkdirSync(join(root, `tp-${i}`), { recursive: true });
      writeFileSync(join(root, `tp-${i}`, FILE), CONTENT);
    }
    const bareSocket = join(dir, "bare.sock");
    const bare = spawn(process.execPath, [join(here, "bare-read-server.js"), bareSocket, root], { stdio: ["ignore", "pipe", "inherit"] });
    children.push(bare);
    await new Promise<void>((resolve, reject) => {
      bare.stdout?.once("data", () => resolve());
      bare.once("exit", (code) => reject(new Error(`the bare server exited (${code})`)));
    });
    const Client = makeGenericClientConstructor(BARE_READ_SERVICE, "BareFiles");
    const bareClient = new Client(`unix://${bareSocket}`, credentials.createInsecure()) as unknown as {
      read(req: Buffer, cb: (err: Error | null, res?: Buffer) => void): void;
      close(): void;
    };
    const bareCall = (c: number): Promise<void> =>
      new Promise((resolve, reject) =>
        bareClient.read(Buffer.from(`tp-${c % conversations}/${FILE}`), (err, res) =>
          err ? reject(err) : res?.length === CONTENT.length ? resolve() : reject(new Error("short read")),
        ),
      );
    await round(bare.pid as number, callers, 5, bareCall);
    const peer: RoundFigures[] = [];
    for (let r = 0; r < rounds; r++) peer.push(await round(bare.pid as number, callers, calls, bareCall));
    bareClient.close();

    const what = `${callers} callers, ${conversations} conversations`;
    // Where each call's CPU goes, every process of the path: calls per second on 2 cores follow the sum.
    const med = (rs: RoundFigures[], f: (r: RoundFigures) => number): string => figures(rs.map(f)).median.toFixed(3);
    process.stderr.write(
      `throughput: CPU ms per call, median of rounds: ours: control plane ${med(ours, (r) => r.cpuPerCallMs)}, host agents ${med(ours, (r) => r.agentsCpuPerCallMs)}, ` +
        `callers ${med(ours, (r) => r.clientCpuPerCallMs)}; bare: server ${med(peer, (r) => r.cpuPerCallMs)}, callers ${med(peer, (r) => r.clientCpuPerCallMs)}\n`,
    );
    const note = `${rounds} rounds of ${callers * calls} calls; CPU of the serving process only (/proc/PID/stat)`;
    return [
      row(
        `read through the control plane, ${what}: latency`,
        ours.flatMap((r) => r.latencies),
        { name: "bare grpc-js server reading the same file", samples: peer.flatMap((r) => r.latencies) },
        { digits: 2 },
      ),
      row(
        `read through the control plane, ${what}: calls per second`,
        ours.map((r) => r.callsPerSecond),
        { name: "bare grpc-js server", samples: peer.map((r) => r.callsPerSecond) },
        { unit: "calls/s", digits: 0, note },
      ),
      row(
        `read through the control plane, ${what}: server CPU per call`,
        ours.map((r) => r.cpuPerCallMs),
        { name: "bare grpc-js server", samples: peer.map((r) => r.cpuPerCallMs) },
        { digits: 3, note },
      ),
    ];
  } finally {
    for (const c of children) await stopChild(c);
    rmSync(dir, { recursive: true, force: true });
  }
}
