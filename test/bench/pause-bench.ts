// Pause and resume with memory (runsc checkpoints) beside a cold start: PauseEnclosure and
// ResumeEnclosure round trips for an enclosure with warm Python and JavaScript kernels, the first cell
// answered by a paused enclosure (the call resumes it) beside the first cell of a cold enclosure, and
// the checkpoint's size on the engine's disk. ENCLAVE_BENCH_PAUSES (default 10) cycles.
import Docker from "dockerode";
import { resultText } from "@enclave/client/tool-result.js";
import { startFixture, type Fixture } from "../helpers/control-plane-fixture.js";
import { type BenchRow, row, time } from "./measure.js";

const MEMORY = 1024 * 1024 ** 2;

async function cell(fx: Fixture, runId: string, language: "python" | "javascript", code: string): Promise<string> {
  const r = await fx.client.callTool(runId, "eval", { description: "keep a value in the kernel", language, code });
  if (r.isError) throw new Error(`the cell failed: ${resultText(r)}`);
  return resultText(r).trim();
}

export async function pauseRows(): Promise<BenchRow[]> {
  const info = (await new Docker().info()) as { Runtimes?: Record<string, unknown> };
  if (!info.Runtimes?.runsc) throw new Error("pause/resume needs runsc registered with the Docker engine (`make docker`)");
  const cycles = Number(process.env.ENCLAVE_BENCH_PAUSES || 10);
  const fx = await startFixture();
  try {
    const pauses: number[] = [];
    const resumes: number[] = [];
    const sizes: number[] = [];
    const autoResumed: number[] = [];
    const coldStarts: number[] = [];
    const coldFirstCells: number[] = [];
    await fx.client.createConversation("pb");
    await fx.client.startEnclosure("pb", { runtime: "runsc", memoryBytes: MEMORY });
    const runId = (await fx.client.openRun("pb", { approvalPolicy: "never", resources: ["workspace", "kernel"] })).id;
    const token = await cell(fx, runId, "python", "import secrets\ntoken = secrets.token_hex(8)\nprint(token)");
    await cell(fx, runId, "javascript", "globalThis.kept = 42; kept");
    for (let i = 0; i < cycles; i++) {
      let bytes = 0;
      pauses.push(await time(async () => (bytes = Number((await fx.client.pauseEnclosure("pb")).enclosure?.checkpointBytes ?? 0))));
      sizes.push(bytes / 1024 ** 2);
      resumes.push(await time(() => fx.client.resumeEnclosure("pb")));
      // A paused enclosure answering a cell: the call resumes it, then the warm kernel answers.
      await fx.client.pauseEnclosure("pb");
      let seen = "";
      autoResumed.push(await time(async () => (seen = await cell(fx, runId, "python", "print(token)"))));
      if (seen !== token) throw new Error(`cycle ${i}: the kernel answered ${seen}, not the token it held before the pause (${token})`);
    }
    // The peer: a cold enclosure under the same runtime and limits, and its first cell (the kernel starts).
    for (let i = 0; i < Math.min(cycles, 10); i++) {
      const id = `pb-cold-${i}`;
      await fx.client.createConversation(id);
      coldStarts.push(await time(() => fx.client.startEnclosure(id, { runtime: "runsc", memoryBytes: MEMORY })));
      const coldRun = (await fx.client.openRun(id, { approvalPolicy: "never", resources: ["workspace", "kernel"] })).id;
      coldFirstCells.push(await time(() => cell(fx, coldRun, "python", "print(1)")));
      await fx.client.stopEnclosure(id);
      await fx.client.deleteConversation(id);
    }
    const cold = { name: "cold enclosure start-to-ready, runsc (StartEnclosure)", samples: coldStarts };
    return [
      row("pause with memory, runsc, warm Python and JS kernels (PauseEnclosure)", pauses, cold, { digits: 0 }),
      row("resume from the checkpoint, warm kernels (ResumeEnclosure)", resumes, cold, { digits: 0 }),
      row(
        "first cell of a paused enclosure (the call resumes it)",
        autoResumed,
        {
          name: "first cell of a cold enclosure (its kernel starts)",
          samples: coldFirstCells.map((c, i) => c + (coldStarts[i] ?? 0)),
        },
        { digits: 0, note: "the peer adds the cold start to its first cell" },
      ),
      row("checkpoint on the engine's disk", sizes, undefined, { unit: "MiB", digits: 1, note: `bounded by the memory limit, ${MEMORY / 1024 ** 2} MiB` }),
    ];
  } finally {
    await fx.close();
  }
}
