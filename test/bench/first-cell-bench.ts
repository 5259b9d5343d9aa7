// make bench, first-cell: a new conversation's first Python cell on host placement — the host agent
// started under bubblewrap, the kernel environment made, the kernel started, `1+1` run — timed from
// the harness's eval call to its result, beside Jupyter's start of an ipykernel + ready + `1+1` on
// the host (jupyter_client, in the same run). Each sample is a conversation of its own.
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { resultText } from "../../control-plane/src/client/control-plane-client.js";
import { startFixture } from "../helpers/control-plane-fixture.js";
import { hostPython } from "../helpers/host-python.js";
import { type BenchRow, row, time } from "./measure.js";

const SAMPLES = Number(process.env.FIRST_CELL_SAMPLES ?? 40);
const here = dirname(fileURLToPath(import.meta.url));

export async function firstCellRows(): Promise<BenchRow[]> {
  const python = hostPython();
  process.env.ENCLAVE_PYTHON = python;
  const fx = await startFixture();
  try {
    const ours: number[] = [];
    for (let i = 0; i < SAMPLES + 2; i++) {
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
    const peerScript = join(here.replace(/\/dist\/test\/bench$/, "/test/bench"), "jupyter_peer.py");
    const peer = JSON.parse(execFileSync(python, [peerScript, String(SAMPLES), "1"], { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 })) as { cold_ms: number[] };
    return [row("first Python cell of a new conversation (host agent + kernel environment + kernel + `1+1`), host", ours, { name: "ipykernel start + ready + `1+1` (host)", samples: peer.cold_ms }, { digits: 0 })];
  } finally {
    await fx.close();
  }
}
