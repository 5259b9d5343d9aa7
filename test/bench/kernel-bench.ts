// make bench, kernels: eval beside Jupyter (Debian's ipykernel + jupyter_client, driven by a client
// in the same run), on host placement and in an enclosure under runc and under gVisor's runsc.
//   warm round trip of `1+1` through the control plane   vs  Jupyter execute of `1+1`
//   kernel cold start to first result (reset + `1+1`)    vs  Jupyter start + ready + `1+1`
//   bridge call round trip, timed inside the cell        vs  the same `read` called by the harness
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { resultText } from "@enclave/client/control-plane-client.js";
import { ENCLOSURE_RUNTIMES } from "@enclave/control-plane/model/enclosure.js";
import { startFixture } from "../helpers/control-plane-fixture.js";
import { hostPython } from "../helpers/host-python.js";
import { type BenchRow, row, time } from "./measure.js";

const WARM = 200;
const COLD = 8;
const BRIDGE = 200;
const here = dirname(fileURLToPath(import.meta.url));

function peerScript(): string {
  // Compiled benches run from dist/test/bench; the script stays in the source tree.
  return join(here.replace(/\/dist\/test\/bench$/, "/test/bench"), "jupyter_peer.py");
}

export async function kernelRows(): Promise<BenchRow[]> {
  const python = hostPython();
  process.env.ENCLAVE_PYTHON = python;
  const fx = await startFixture();
  try {
    return await measureKernels(fx, python);
  } finally {
    await fx.close();
  }
}

async function measureKernels(fx: Awaited<ReturnType<typeof startFixture>>, python: string): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const peer = JSON.parse(execFileSync(python, [peerScript(), String(COLD), String(WARM)], { encoding: "utf8", maxBuffer: 16 * 1024 * 1024 })) as {
    cold_ms: number[];
    warm_ms: number[];
  };

  const places: Array<[string, string]> = [["host", "kh"]];
  await fx.client.createConversation("kh");
  for (const runtime of ENCLOSURE_RUNTIMES) {
    const id = `ke-${runtime}`;
    try {
      await fx.client.createConversation(id);
      await fx.client.startEnclosure(id, { runtime });
      places.push([runtime === "runsc" ? "enclosure, runsc (gVisor)" : "enclosure", id]);
    } catch (err) {
      console.error(`bench: no ${runtime} enclosure for the kernel figures (${(err as Error).message})`);
    }
  }

  for (const [where, conv] of places) {
    const run = (await fx.client.openRun(conv, { approvalPolicy: "never" })).id;
    const cell = async (args: Record<string, unknown>): Promise<string> => {
      const r = await fx.client.callTool(run, "eval", { description: "one benchmark cell of the kernel bench", ...args });
      if (r.isError) throw new Error(`bench cell failed: ${resultText(r)}`);
      return resultText(r);
    };
    for (const language of ["python", "javascript"] as const) {
      await cell({ language, code: "1+1" });
      for (let i = 0; i < 20; i++) await cell({ language, code: "1+1" });
      const warm: number[] = [];
      for (let i = 0; i < WARM; i++) warm.push(await time(() => cell({ language, code: "1+1" })));
      const isPy = language === "python";
      rows.push(
        row(`eval \`1+1\` warm round trip, ${language}, ${where}`, warm, isPy ? { name: "Jupyter execute `1+1` (host)", samples: peer.warm_ms } : undefined, {
          digits: 1,
        }),
      );
      const cold: number[] = [];
      for (let i = 0; i < COLD; i++) cold.push(await time(() => cell({ language, code: "1+1", reset: true })));
      rows.push(
        row(
          `kernel cold start to result, ${language}, ${where}`,
          cold,
          isPy ? { name: "ipykernel start + ready + `1+1` (host)", samples: peer.cold_ms } : undefined,
          { digits: 0 },
        ),
      );
    }
    writeFileSync(join((await fx.client.getConversation(conv)).workspacePath, "bench.txt"), "a small file\n");
    const inside = JSON.parse(
      await cell({
        code: `import json, time\nsamples = []\nfor _ in range(${BRIDGE}):\n    t = time.perf_counter()\n    tool("read", {"path": "bench.txt"})\n    samples.append((time.perf_counter() - t) * 1000)\nprint(json.dumps(samples))`,
      }),
    ) as number[];
    const direct: number[] = [];
    for (let i = 0; i < BRIDGE; i++) direct.push(await time(() => fx.client.callTool(run, "read", { path: "bench.txt" })));
    rows.push(
      row(
        `bridge call round trip (read, from a Python cell), ${where}`,
        inside,
        { name: "the same read called by the harness", samples: direct },
        { digits: 2 },
      ),
    );
  }
  return rows;
}
