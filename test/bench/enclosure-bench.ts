// Enclosure start-to-ready against a bare `docker run --rm <same image> true`, and the agent's Health
// round trip on the host and in an enclosure.
import { execFileSync } from "node:child_process";
import { imageTags } from "../../images/pipeline/image-set.js";
import { startFixture } from "../helpers/control-plane-fixture.js";
import { type BenchRow, row, sample, time } from "./measure.js";

export async function enclosureRows(): Promise<BenchRow[]> {
  const fx = await startFixture();
  try {
    const image = imageTags().runtime;
    const ours: number[] = [];
    const peer: number[] = [];
    for (let i = 0; i < 5; i++) {
      await fx.client.createConversation(`b${i}`);
      ours.push(await time(() => fx.client.startEnclosure(`b${i}`)));
      peer.push(await time(() => execFileSync("docker", ["run", "--rm", "--network", "none", image, "true"])));
    }
    const rows = [row("enclosure start-to-ready", ours, { name: "bare docker run --rm true", samples: peer }, { digits: 0 })];
    await fx.client.createConversation("bh");
    const host = (await fx.cp.placements.endpoint("bh")).client;
    const enc = (await fx.cp.placements.endpoint("b0")).client;
    rows.push(row("agent Health, host", await sample(500, () => host.health(), 20), undefined, { digits: 3 }));
    rows.push(row("agent Health, enclosure", await sample(500, () => enc.health(), 20), undefined, { digits: 3 }));
    return rows;
  } finally {
    await fx.close();
  }
}
