// make bench, first-cell: a new conversation's first Python cell on host placement — the host agent
// started under bubblewrap, the kernel environment made, the kernel started, `1+1` run — timed from
// the harness's eval call to its result, beside Jupyter's start of an ipykernel + ready + `1+1` on
// the host (jupyter_client, in the same run). Each sample is a conversation of its own. A second row
// has a spare host agent ready (ENCLAVE_HOST_SPARES=1): the conversation takes it when it is made.
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { resultText } from "@enclave/client/control-plane-client.js";
import { startFixture } from "../helpers/control-plane-fixture.js";
import { hostPython } from "../helpers/host-python.js";
import { eventually } from "../helpers/wait.js";
import { type BenchRow, row, time } from "./measure.js";

const SAMPLES = Number(process.env.FIRST_CELL_SAMPLES ?? 40);
const here = dirname(fileURLToPath(import.meta.url));

/** Each sample a new conversation's first cell; with spares, a spare host agent is ready (untimed) before each. */
async function firstCells(spares: number): Promise<number[]> {
  const fx = await startFixture((config) => {
    config.hostSandbox.spares = spares;
  });
  try {
    const ours: number[] = [];
    for (let i = 0; i < SAMPLES + 2; i++) {
      if (spares) await eventually(async () => fx.cp.hostAgents.spareCount() >= 1, "a spare host agent to be ready", 60_000);
      const id = `first-cell-${i}`;
      await fx.client.createConversation(id);
      const run = (await fx.client.openRun(id, { approvalPolicy: "never" })).id;
      const ms = await time(async () => {
        const r = await fx.client.callTool(run, "eval", { description: "the first cell of a new conversation", language: "python", code: "1+1" });
        if (r.isError || !resultText(r).includes("2")) throw new Error(`first cell failed: ${resultText(r)}`);
      });
      // The first two warm the machine's file cache; they are not counted.
      if (i >= 2) ours.push(ms);
      await fx.client.deleteConversation(id);
    }
    return ours;
  } finally {
    await fx.close();
  }
}

export async function firstCellRows(): Promise<BenchRow[]> {
  const python = hostPython();
  process.env.ENCLAVE_PYTHON = python;
  const cold = await firstCells(0);
  const spare = await firstCells(1);
  const peerScript = join(here.replace(/\/dist\/test\/bench$/, "/test/bench"), "jupyter_peer.py");
  const peer = JSON.parse(execFileSync(python, [peerScript, String(SAMPLES), "1"], { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 })) as { cold_ms: number[] };
  const jupyter = { name: "ipykernel start + ready + `1+1` (host)", samples: peer.cold_ms };
  return [
    row("first Python cell of a new conversation (host agent + kernel environment + kernel + `1+1`), host", cold, jupyter, { digits: 0 }),
    row("first Python cell of a new conversation, a spare host agent ready (ENCLAVE_HOST_SPARES=1), host", spare, jupyter, { digits: 0 }),
  ];
}
