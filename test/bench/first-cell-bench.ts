// make bench, first-cell: a new conversation's first Python cell on host placement, timed from the
// harness's eval call to its result, beside Jupyter's start of an ipykernel + ready + `1+1` on the
// host (jupyter_client, in the same run). Each sample is a conversation of its own. Three rows, from
// two control planes sampled in turns (blocks of a few samples each), so a machine whose speed drifts
// weighs on every row alike:
// - the default configuration in its steady state: a spare host agent (ENCLAVE_HOST_SPARES=1, with
//   its Python kernel) is ready, waited for untimed, and the conversation takes it when it is made;
// - the same control plane with conversations arriving back to back, each made as soon as the one
//   before has its result: faster than a spare is refilled, so some find none and start their agent
//   while the refill runs;
// - no spare (ENCLAVE_HOST_SPARES=0): the host agent started under bubblewrap for the cell, the
//   kernel environment made, the kernel started, `1+1` run.
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { hostPython } from "../helpers/host-python.js";
import { eventually } from "../helpers/wait.js";
import { type BenchRow, row, time } from "./measure.js";

const SAMPLES = Number(process.env.FIRST_CELL_SAMPLES ?? 40);
/** Samples of one row taken before the next row's turn. */
const BLOCK = 5;
const here = dirname(fileURLToPath(import.meta.url));

let made = 0;

/** How many of the back-to-back samples found a spare ready. */
let tookSpare = 0;

/** A new conversation's first cell, timed from the eval call; the conversation is deleted after. */
async function firstCell(fx: Fixture, count = false): Promise<number> {
  const id = `first-cell-${++made}`;
  await fx.client.createConversation(id);
  // An agent running before any call is the spare it took.
  if (count && fx.cp.hostAgents.pid(id) !== undefined) tookSpare++;
  const run = (await fx.client.openRun(id, { approvalPolicy: "never" })).id;
  const ms = await time(async () => {
    const r = await fx.client.callTool(run, "eval", { description: "the first cell of a new conversation", language: "python", code: "1+1" });
    if (r.isError || !resultText(r).includes("2")) throw new Error(`first cell failed: ${resultText(r)}`);
  });
  await fx.client.deleteConversation(id);
  return ms;
}

const spareReady = async (fx: Fixture): Promise<void> =>
  void (await eventually(async () => fx.cp.hostAgents.spareCount() >= 1, "a spare host agent to be ready", 60_000));

export async function firstCellRows(): Promise<BenchRow[]> {
  const python = hostPython();
  process.env.ENCLAVE_PYTHON = python;
  // Set on each: the environment may say otherwise (the tests run with none).
  const withSpare = await startFixture((config) => void (config.hostSandbox.spares = 1));
  const noSpare = await startFixture((config) => void (config.hostSandbox.spares = 0));
  const ready: number[] = [];
  const backToBack: number[] = [];
  const cold: number[] = [];
  try {
    // The first two of each warm the machine's file cache; they are not counted.
    for (let i = 0; i < 2; i++) {
      await firstCell(noSpare);
      await spareReady(withSpare);
      await firstCell(withSpare);
    }
    while (cold.length < SAMPLES) {
      const take = Math.min(BLOCK, SAMPLES - cold.length);
      await spareReady(withSpare);
      for (let i = 0; i < take; i++) cold.push(await firstCell(noSpare));
      for (let i = 0; i < take; i++) {
        await spareReady(withSpare);
        ready.push(await firstCell(withSpare));
      }
      await spareReady(withSpare);
      for (let i = 0; i < take; i++) backToBack.push(await firstCell(withSpare, true));
    }
    // The last refill is not left running into the next bench.
    await spareReady(withSpare);
  } finally {
    await withSpare.close();
    await noSpare.close();
  }
  const peerScript = join(here.replace(/\/dist\/test\/bench$/, "/test/bench"), "jupyter_peer.py");
  const peer = JSON.parse(execFileSync(python, [peerScript, String(SAMPLES), "1"], { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 })) as { cold_ms: number[] };
  const jupyter = { name: "ipykernel start + ready + `1+1` (host)", samples: peer.cold_ms };
  return [
    row(
      "first Python cell of a new conversation, default configuration (a spare host agent with its kernel ready, ENCLAVE_HOST_SPARES=1), host",
      ready,
      jupyter,
      {
        digits: 0,
      },
    ),
    row(
      "first Python cell of a new conversation, default configuration, conversations back to back (faster than the spare is refilled), host",
      backToBack,
      jupyter,
      { digits: 0, note: `${tookSpare} of ${backToBack.length} found a spare ready` },
    ),
    row("first Python cell of a new conversation, no spare (ENCLAVE_HOST_SPARES=0: host agent + kernel environment + kernel + `1+1`), host", cold, jupyter, {
      digits: 0,
    }),
  ];
}
