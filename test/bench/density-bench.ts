// Density: what one idle enclosure with a warm Python kernel costs in memory, and so how many fit in
// this machine's available memory — beside idle warm Jupyter kernels (ipykernel, on the host)
// measured in the same run. Both sides are resident set sizes (for an enclosure: the sum over all its
// processes — init, the agent, the kernel), which counts shared libraries in full and so errs high;
// the memory cgroup's own charge, which does not, is given in the note.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Docker from "dockerode";
import { resultText } from "../../control-plane/src/client/control-plane-client.js";
import { startFixture } from "../helpers/control-plane-fixture.js";
import { hostPython } from "../helpers/host-python.js";
import { type BenchRow, figures, row } from "./measure.js";

const ENCLOSURES = 6;
const here = dirname(fileURLToPath(import.meta.url));

function availableMiB(): number {
  const kb = Number(/^MemAvailable:\s+(\d+) kB/m.exec(readFileSync("/proc/meminfo", "utf8"))?.[1] ?? 0);
  return kb / 1024;
}

/** Resident memory of every process in a container, summed. */
async function containerRssMiB(docker: Docker, id: string): Promise<number> {
  // The engine needs a pid column to map processes; rss comes second.
  const top = await docker.getContainer(id).top({ ps_args: "-eo pid,rss" });
  return ((top.Processes ?? []) as string[][]).reduce((sum, p) => sum + Number(p[1] ?? 0), 0) / 1024;
}

/** The memory cgroup's charge, as `docker stats` shows it (reclaimable cache excluded). */
async function containerChargeMiB(docker: Docker, id: string): Promise<number> {
  const stats = (await docker.getContainer(id).stats({ stream: false })) as unknown as {
    memory_stats: { usage?: number; stats?: Record<string, number> };
  };
  const m = stats.memory_stats;
  const reclaimable = m.stats?.total_inactive_file ?? m.stats?.inactive_file ?? 0;
  return ((m.usage ?? 0) - reclaimable) / 1024 ** 2;
}

export async function densityRows(): Promise<BenchRow[]> {
  const available = availableMiB();
  const python = hostPython();
  const peerScript = join(here.replace(/\/dist\/test\/bench$/, "/test/bench"), "jupyter_peer.py");
  const jupyter = (JSON.parse(execFileSync(python, [peerScript, "rss", String(ENCLOSURES)], { encoding: "utf8", timeout: 300_000 })) as { rss_mib: number[] }).rss_mib;

  const fx = await startFixture();
  const docker = new Docker();
  try {
    const ids: string[] = [];
    for (let i = 0; i < ENCLOSURES; i++) {
      const id = `dense${i}`;
      await fx.client.createConversation(id);
      const conv = await fx.client.startEnclosure(id);
      const run = (await fx.client.openRun(id, { approvalPolicy: "never", resources: ["kernel"] })).id;
      const r = await fx.client.callTool(run, "eval", { description: "warm the kernel for the density figure", code: "x = 1" });
      if (r.isError) throw new Error(`warming the kernel failed: ${resultText(r)}`);
      ids.push(conv.enclosure?.containerId ?? "");
    }
    await new Promise((r) => setTimeout(r, 3_000)); // let start-up garbage be collected
    const ours = await Promise.all(ids.map((id) => containerRssMiB(docker, id)));
    const charged = figures(await Promise.all(ids.map((id) => containerChargeMiB(docker, id)))).median;
    const fit = (perOne: number): number => Math.floor(available / perOne);
    const note = `${(available / 1024).toFixed(1)} GiB available at the start, memory only; by the cgroup's charge (${charged.toFixed(0)} MiB each) ${fit(charged)} would fit`;
    return [
      row("memory per idle enclosure with a warm Python kernel (RSS of all its processes)", ours, { name: "idle warm Jupyter kernel (ipykernel RSS, host)", samples: jupyter }, { unit: "MiB", digits: 0 }),
      row("idle enclosures with a warm Python kernel that fit", [fit(figures(ours).median)], { name: "idle warm Jupyter kernels that fit", samples: [fit(figures(jupyter).median)] }, { unit: "count", digits: 0, note }),
    ];
  } finally {
    await fx.close();
  }
}
