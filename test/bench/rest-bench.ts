// make bench, rest: many conversations at rest in one control plane (its own process, `enclave
// serve`, so its memory is its own). SLEEPERS host conversations (ENCLAVE_BENCH_REST_SLEEPERS,
// default 1,000) each run a Python cell and are then put to sleep by the idle policy (an idle
// timeout of 1 s here: ENCLAVE_IDLE_TIMEOUT_SECONDS), in batches of BATCH (ENCLAVE_BENCH_REST_BATCH,
// default 40) so that no more host agents than that are alive at once; then RECORDS conversations
// that never ran anything (ENCLAVE_BENCH_REST_RECORDS, default 10,000) are made. Measured:
//   the control plane's RSS holding them        beside  the same process holding 10 (before the rest)
//   its CPU per second while nothing calls it    beside  the same holding 10
//   ListConversations, a page of 10, the         beside  the same at 10 conversations
//     default page, every page of 1000, held
//   a random sleeper's first eval (its wake:     beside  a new conversation's first cell (cold), in turns
//     host agent, kernel, `1+1`)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ControlPlaneClient, resultText } from "@enclave/client/control-plane-client.js";
import { LIMITS } from "@enclave/control-plane/limits.js";
import { hostPython } from "../helpers/host-python.js";
import { type BenchRow, interleaved, row, time } from "./measure.js";
import { rssMiB } from "./sandbox-memory.js";
import { cpuMs, serveControlPlane } from "./served-control-plane.js";

const count = (name: string, fallback: number): number => Number(process.env[name] || fallback);
const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const LIST_CALLS = 30;
const WAKES = 10;
/** Seconds over which the CPU of a control plane nobody calls is read (ENCLAVE_BENCH_REST_IDLE_SECONDS). */
const idleCpuSeconds = (): number => count("ENCLAVE_BENCH_REST_IDLE_SECONDS", 10);

/** The process's CPU per second of wall time while nothing calls it (its timers: the idle sweeper's pass every second). */
async function idleCpu(pid: number): Promise<number> {
  const c0 = cpuMs(pid);
  const t0 = performance.now();
  await pause(idleCpuSeconds() * 1000);
  return ((cpuMs(pid) - c0) / (performance.now() - t0)) * 1000;
}

/** RSS read a few times over a second after things settle, the median. */
async function settledRss(pid: number): Promise<number> {
  await pause(3_000);
  const reads: number[] = [];
  for (let i = 0; i < 5; i++) {
    reads.push(rssMiB(pid));
    await pause(200);
  }
  return reads.sort((a, b) => a - b)[2] as number;
}

/** `n` calls of fn, `width` at a time. */
async function inParallel(n: number, width: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, n) }, async () => {
      for (let i = next++; i < n; i = next++) await fn(i);
    }),
  );
}

async function firstCell(client: ControlPlaneClient, run: string): Promise<void> {
  const r = await client.callTool(run, "eval", { description: "a cell of the rest bench", language: "python", code: "1+1" });
  if (r.isError || !resultText(r).includes("2")) throw new Error(`a cell of the rest bench failed: ${resultText(r)}`);
}

/**
 * ListConversations, LIST_CALLS times each in turns: a first page of 10 (the same work at any size:
 * what the number held adds), the default page, and every page of 1000 (the whole list).
 */
async function listLatencies(client: ControlPlaneClient): Promise<{ ten: number[]; page: number[]; all: number[] }> {
  const calls = {
    ten: (): Promise<unknown> => client.listConversationsPage({ pageSize: 10 }),
    page: (): Promise<unknown> => client.listConversationsPage(),
    all: (): Promise<unknown> => client.listConversations({ pageSize: 1000 }),
  };
  return interleaved(LIST_CALLS, 1, calls, 3);
}

export async function restRows(): Promise<BenchRow[]> {
  const sleepers = count("ENCLAVE_BENCH_REST_SLEEPERS", 1000);
  const records = count("ENCLAVE_BENCH_REST_RECORDS", 10_000);
  const batch = count("ENCLAVE_BENCH_REST_BATCH", 40);
  process.env.ENCLAVE_PYTHON = hostPython();
  const dir = mkdtempSync(join(tmpdir(), "enclave-rest-"));
  // Sleep after 1 s idle (the sweeper looks every second), so a batch's agents are gone soon after its cells.
  const served = await serveControlPlane(dir, { ENCLAVE_IDLE_TIMEOUT_SECONDS: "1" });
  const { client, pid } = served;
  const awake: string[] = [];
  try {
    // At 10 conversations (never run): the small list the large one is set beside. The baseline
    // is read after it, so both figures come from a process whose serving paths have run.
    for (let i = 0; i < 10; i++) await client.createConversation(`rec-${i}`);
    const small = await listLatencies(client);
    const baselineRss = await settledRss(pid);
    const baselineCpu = await idleCpu(pid);

    // The sleepers, a batch at a time: made, a cell run in each (all of the batch at once), then
    // waited for until every one sleeps (its host agent stopped).
    const runs = new Map<string, string>();
    const retried: string[] = [];
    let phase = performance.now();
    const done = (what: string): void => {
      process.stderr.write(`bench: rest: ${what} in ${((performance.now() - phase) / 1000).toFixed(1)} s\n`);
      phase = performance.now();
    };
    for (let b = 0; b < sleepers; b += batch) {
      const ids = Array.from({ length: Math.min(batch, sleepers - b) }, (_, i) => `sleeper-${b + i}`);
      for (const id of ids) {
        await client.createConversation(id);
        runs.set(id, (await client.openRun(id, { approvalPolicy: "never" })).id);
      }
      // Setting up, not measuring: a cell that failed in the crowd of its batch (an agent too slow to
      // answer on a loaded machine) is asked once more, and counted.
      await Promise.all(
        ids.map((id) =>
          firstCell(client, runs.get(id) as string).catch(async (err: unknown) => {
            retried.push(`${id}: ${(err as Error).message.slice(0, 200)}`);
            await firstCell(client, runs.get(id) as string);
          }),
        ),
      );
      const deadline = Date.now() + 120_000;
      let waiting = ids;
      while (waiting.length) {
        if (Date.now() > deadline) throw new Error(`${waiting.length} sleepers of the rest bench did not go to sleep within 120 s`);
        await pause(500);
        const states = await Promise.all(waiting.map((id) => client.getConversation(id).then((c) => c.lifecycleState)));
        waiting = waiting.filter((_, i) => states[i] !== "sleeping");
      }
    }
    done(
      `${sleepers} sleepers made, run and asleep${retried.length ? `; ${retried.length} first cell(s) failed once and were asked again: ${retried.join("; ")}` : ""}`,
    );
    // The records that never ran: made 8 at a time (each is a folder and a database row).
    await inParallel(records - 10, 8, (i) => client.createConversation(`rec-${i + 10}`));
    done(`${records - 10} records made`);
    const heldRss = await settledRss(pid);
    const heldCpu = await idleCpu(pid);
    const large = await listLatencies(client);

    // A random sleeper's wake beside a new conversation's first cell, in turns.
    const wakes: number[] = [];
    const colds: number[] = [];
    const pick = [...runs.keys()].sort(() => Math.random() - 0.5).slice(0, WAKES);
    for (const [i, id] of pick.entries()) {
      awake.push(id);
      wakes.push(await time(() => firstCell(client, runs.get(id) as string)));
      const cold = `cold-${i}`;
      await client.createConversation(cold);
      awake.push(cold);
      const run = (await client.openRun(cold, { approvalPolicy: "never" })).id;
      colds.push(await time(() => firstCell(client, run)));
    }
    done("held figures measured");

    const total = sleepers + records;
    const held = `${sleepers} sleeping host conversations (each ran a cell) + ${records} never run`;
    return [
      row(
        `rest: control-plane RSS holding ${held}`,
        [heldRss],
        { name: "the same control plane holding 10 never run", samples: [baselineRss] },
        {
          unit: "MiB",
          digits: 0,
          note: `its own process (\`enclave serve\`), VmRSS, median of 5 reads after 3 s${retried.length ? `; ${retried.length} sleeper first cell(s) failed once in their batch and were asked again` : ""}`,
        },
      ),
      row(
        `rest: control-plane memory per conversation at rest (RSS held − with 10, over ${total - 10})`,
        [((heldRss - baselineRss) * 1024) / (total - 10)],
        undefined,
        {
          unit: "KiB",
          digits: 1,
        },
      ),
      row(
        `rest: control-plane CPU while nothing calls it, holding ${held}`,
        [heldCpu],
        { name: "the same control plane holding 10 never run", samples: [baselineCpu] },
        {
          unit: "ms/s",
          digits: 1,
          note: `CPU time (/proc/PID/stat, 10 ms ticks) over ${idleCpuSeconds()} s: the idle sweeper passes over every conversation each second`,
        },
      ),
      row(
        `rest: ListConversations, a first page of 10, ${total} conversations held`,
        large.ten,
        { name: "the same at 10 conversations", samples: small.ten },
        { digits: 2, note: "the same reply at both sizes: what holding more conversations adds to a call" },
      ),
      row(
        `rest: ListConversations, one default page (${LIMITS.listConversationsDefaultPage} a page), ${total} conversations held`,
        large.page,
        { name: "the same at 10 conversations", samples: small.page },
        { digits: 2 },
      ),
      row(
        `rest: ListConversations, every page of 1000 (the whole list), ${total} conversations held`,
        large.all,
        { name: "the same at 10 conversations (one page)", samples: small.all },
        { digits: 1 },
      ),
      row(
        `rest: a random sleeper's first eval \`1+1\` (its wake: host agent + kernel + cell), ${total} held`,
        wakes,
        { name: "a new conversation's first cell, in turns, same run", samples: colds },
        { digits: 0 },
      ),
    ];
  } finally {
    // Only the conversations woken here have an agent; the rest go with the folder.
    for (const id of awake) await client.deleteConversation(id).catch(() => undefined);
    await served.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
