// make bench: our figures beside a peer's, measured in the same run.
//   enclosure start-to-ready  vs  bare `docker run --rm <same image> true`
//   agent Health round trip on host and in an enclosure
import { execFileSync } from "node:child_process";
import { imageTags } from "../../images/pipeline/image-set.js";
import { startFixture } from "../helpers/control-plane-fixture.js";
import { kernelBench } from "./kernel-bench.js";

function stats(samples: number[]): { median: number; p99: number } {
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
  return { median: at(0.5), p99: at(0.99) };
}

async function time(fn: () => Promise<unknown> | unknown): Promise<number> {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

async function main(): Promise<void> {
  const fx = await startFixture();
  const rows: string[][] = [];
  try {
    const image = imageTags().runtime;
    const ours: number[] = [];
    const peer: number[] = [];
    for (let i = 0; i < 5; i++) {
      await fx.client.createConversation(`b${i}`);
      ours.push(await time(() => fx.client.startEnclosure(`b${i}`)));
      peer.push(await time(() => execFileSync("docker", ["run", "--rm", "--network", "none", image, "true"])));
    }
    const o = stats(ours);
    const p = stats(peer);
    rows.push(["enclosure start-to-ready (ms)", o.median.toFixed(0), o.p99.toFixed(0), "bare docker run --rm true", p.median.toFixed(0), p.p99.toFixed(0)]);

    await fx.client.createConversation("bh");
    const host = (await fx.cp.placements.endpoint("bh")).client;
    const enc = (await fx.cp.placements.endpoint("b0")).client;
    for (const [label, client] of [["agent Health, host (ms)", host], ["agent Health, enclosure (ms)", enc]] as const) {
      for (let i = 0; i < 20; i++) await client.health();
      const samples: number[] = [];
      for (let i = 0; i < 500; i++) samples.push(await time(() => client.health()));
      const s = stats(samples);
      rows.push([label, s.median.toFixed(3), s.p99.toFixed(3), "", "", ""]);
    }
    rows.push(...(await kernelBench(fx, stats, time)));
  } finally {
    await fx.close();
  }
  const header = ["measure", "ours median", "ours p99", "peer", "peer median", "peer p99"];
  console.log(`| ${header.join(" | ")} |\n|${header.map(() => "---").join("|")}|`);
  for (const r of rows) console.log(`| ${r.join(" | ")} |`);
}

main().catch((err: unknown) => {
  console.error(`bench: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
