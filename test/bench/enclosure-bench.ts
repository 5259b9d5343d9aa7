// Enclosure start-to-ready against a bare `docker run --rm <same image> true` under the same runtime
// (runc, and gVisor's runsc when the engine has it), and the agent's Health round trip on the host
// and in an enclosure under each runtime.
import { execFileSync } from "node:child_process";
import { imageTags } from "../../images/pipeline/image-set.js";
import { ENCLOSURE_RUNTIMES } from "../../control-plane/src/config.js";
import { startFixture } from "../helpers/control-plane-fixture.js";
import { type BenchRow, row, sample, time } from "./measure.js";

const label = (runtime: string): string => (runtime === "runsc" ? ", runsc (gVisor)" : "");

export async function enclosureRows(): Promise<BenchRow[]> {
  const fx = await startFixture();
  try {
    const image = imageTags().runtime;
    const rows: BenchRow[] = [];
    const health: BenchRow[] = [];
    await fx.client.createConversation("bh");
    const host = (await fx.cp.placements.endpoint("bh")).client;
    health.push(row("agent Health, host", await sample(500, () => host.health(), 20), undefined, { digits: 3 }));
    for (const runtime of ENCLOSURE_RUNTIMES) {
      const ours: number[] = [];
      const peer: number[] = [];
      for (let i = 0; i < 5; i++) {
        const id = `b-${runtime}-${i}`;
        await fx.client.createConversation(id);
        ours.push(await time(() => fx.client.startEnclosure(id, { runtime })));
        peer.push(await time(() => execFileSync("docker", ["run", "--rm", "--runtime", runtime, "--network", "none", image, "true"])));
      }
      rows.push(row(`enclosure start-to-ready${label(runtime)}`, ours, { name: `bare docker run --rm true${label(runtime)}`, samples: peer }, { digits: 0 }));
      const enc = (await fx.cp.placements.endpoint(`b-${runtime}-0`)).client;
      health.push(row(`agent Health, enclosure${label(runtime)}`, await sample(500, () => enc.health(), 20), undefined, { digits: 3 }));
    }
    return [...rows, ...health];
  } finally {
    await fx.close();
  }
}
