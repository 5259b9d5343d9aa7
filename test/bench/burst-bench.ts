// make bench, burst: N new host conversations' first Python cells at once (ENCLAVE_BENCH_BURST_N,
// default 100), with the default configuration (no spare host agents): the N conversations are
// made and a run opened on each first (untimed), then every eval `1+1` is sent together; each
// sample is the time from that common start to one cell's result, and the last one is the burst's
// end. The control plane runs as its own process (`enclave serve`), so the bench's client does not
// share its event loop. Beside it, in the same run: N ipykernels started at once by jupyter_client
// (one event loop, as a Jupyter server starts them), each running `1+1`, timed the same way.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { resultText } from "@enclave/client/control-plane-client.js";
import { hostPython } from "../helpers/host-python.js";
import { type BenchRow, row } from "./measure.js";
import { serveControlPlane } from "./served-control-plane.js";

const here = dirname(fileURLToPath(import.meta.url));
const count = (name: string, fallback: number): number => Number(process.env[name] || fallback);

/** Each conversation's first cell, timed from the moment all N were sent; the ones that failed, by error code. */
async function ourBurst(n: number): Promise<{ ms: number[]; failed: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), "enclave-burst-"));
  const served = await serveControlPlane(dir);
  const { client } = served;
  const ids = Array.from({ length: n }, (_, i) => `burst-${i}`);
  try {
    const runs: string[] = [];
    for (const id of ids) {
      await client.createConversation(id);
      runs.push((await client.openRun(id, { approvalPolicy: "never" })).id);
    }
    const t0 = performance.now();
    const ms: number[] = [];
    const failed: string[] = [];
    await Promise.all(
      runs.map(async (run) => {
        const r = await client.callTool(run, "eval", { description: "the first cell of a new conversation, in a burst", language: "python", code: "1+1" });
        // A cell the burst failed is a finding, said in the row's note, not a sample.
        if (r.isError || !resultText(r).includes("2")) failed.push(r.errorCode || "no_result");
        else ms.push(performance.now() - t0);
      }),
    );
    if (ms.length === 0) throw new Error(`every first cell of the burst failed: ${failed.join(", ")}`);
    return { ms, failed };
  } finally {
    // Deleted a few at a time (each stops its host agent), then the control plane stops.
    for (let i = 0; i < ids.length; i += 10) await Promise.all(ids.slice(i, i + 10).map((id) => client.deleteConversation(id).catch(() => undefined)));
    await served.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function burstRows(): Promise<BenchRow[]> {
  const n = count("ENCLAVE_BENCH_BURST_N", 100);
  const python = hostPython();
  process.env.ENCLAVE_PYTHON = python;
  const { ms: ours, failed } = await ourBurst(n);
  const peerScript = join(here.replace(/\/dist\/test\/bench$/, "/test/bench"), "jupyter_peer.py");
  const { stdout } = await promisify(execFile)(python, [peerScript, "burst", String(n)], { encoding: "utf8", maxBuffer: 16 * 1024 * 1024, timeout: 900_000 });
  const peer = (JSON.parse(stdout) as { burst_ms: number[] }).burst_ms;
  const what = `${n} first Python cells (\`1+1\`) in ${n} new host conversations at once`;
  const failures = failed.length ? `; ${failed.length} of ${n} failed (${[...new Set(failed)].join(", ")}) and are not samples` : "";
  const note = `from the common start (every call sent together) to each result; default configuration (one spare host agent, taken by a conversation made while it is ready); the control plane as its own process${failures}`;
  return [
    row(
      `burst: ${what}, time to each result`,
      ours,
      { name: `${n} ipykernels started at once (jupyter_client), each \`1+1\``, samples: peer },
      { digits: 0, note },
    ),
    row(
      `burst: ${what}, time to the last result`,
      [Math.max(...ours)],
      { name: `${n} ipykernels started at once, the last result`, samples: [Math.max(...peer)] },
      { digits: 0 },
    ),
  ];
}
