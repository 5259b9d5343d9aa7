// Enclosure start-to-ready against a bare `docker run --rm <same image> true` under the same runtime
// (runc, and gVisor's runsc when the engine has it); an enclosure claimed from the warm pool; and the
// agent's Health round trip on the host and in an enclosure under each runtime.
// ENCLAVE_BENCH_STARTS (default 20) cold starts per runtime, ENCLAVE_BENCH_POOL_CLAIMS (default 100)
// claims from the pool.
import { execFileSync } from "node:child_process";
import { imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import { ENCLOSURE_RUNTIMES } from "@enclave/control-plane/model/enclosure.js";
import { startFixture } from "../helpers/control-plane-fixture.js";
import { eventually } from "../helpers/wait.js";
import { type BenchRow, row, sample, time } from "./measure.js";

const label = (runtime: string): string => (runtime === "runsc" ? ", runsc (gVisor)" : "");
const count = (name: string, fallback: number): number => Number(process.env[name] || fallback);

export async function enclosureRows(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const health: BenchRow[] = [];
  const fx = await startFixture();
  try {
    const image = imageTags().runtime;
    await fx.client.createConversation("bh");
    const host = (await fx.cp.placements.endpoint("bh")).client;
    health.push(row("agent Health, host", await sample(500, () => host.health(), 20), undefined, { digits: 3 }));
    for (const runtime of ENCLOSURE_RUNTIMES) {
      const ours: number[] = [];
      const peer: number[] = [];
      // The first start fills the shared agent-bundle volume: untimed, like the peer's image being present.
      await fx.client.createConversation(`b-${runtime}-warmup`);
      await fx.client.startEnclosure(`b-${runtime}-warmup`, { runtime });
      for (let i = 0; i < count("ENCLAVE_BENCH_STARTS", 20); i++) {
        const id = `b-${runtime}-${i}`;
        await fx.client.createConversation(id);
        ours.push(await time(() => fx.client.startEnclosure(id, { runtime })));
        peer.push(await time(() => execFileSync("docker", ["run", "--rm", "--runtime", runtime, "--network", "none", image, "true"])));
        if (i > 0) await fx.client.stopEnclosure(id);
      }
      rows.push(row(`enclosure start-to-ready${label(runtime)}`, ours, { name: `bare docker run --rm true${label(runtime)}`, samples: peer }, { digits: 0 }));
      const enc = (await fx.cp.placements.endpoint(`b-${runtime}-0`)).client;
      health.push(row(`agent Health, enclosure${label(runtime)}`, await sample(500, () => enc.health(), 20), undefined, { digits: 3 }));
    }
  } finally {
    await fx.close();
  }
  rows.push(await poolRow());
  return [...rows, ...health];
}

/** Claims from a warm pool of the default profile: StartEnclosure's whole round trip, the pool refilled (untimed) before each. */
async function poolRow(): Promise<BenchRow> {
  const fx = await startFixture((config) => {
    config.warmPool = { size: 2, profiles: [{}] };
  });
  try {
    const ready = (): number => fx.cp.warmPool?.counts()[0]?.ready ?? 0;
    const claims: number[] = [];
    const cold: number[] = [];
    for (let i = 0; i < count("ENCLAVE_BENCH_POOL_CLAIMS", 100); i++) {
      await eventually(async () => ready() >= 1, "the warm pool to have an enclosure ready", 120_000);
      const id = `pool-${i}`;
      await fx.client.createConversation(id);
      let origin = "";
      claims.push(await time(async () => (origin = (await fx.client.startEnclosure(id)).enclosure?.origin ?? "")));
      if (origin !== "pool") throw new Error(`claim ${i} started ${origin || "no"} enclosure, not one from the pool`);
      await fx.client.stopEnclosure(id);
      await fx.client.deleteConversation(id);
    }
    // The same profile started cold in the same control plane, pool drained: the peer of the claim.
    await fx.cp.warmPool?.drain();
    for (let i = 0; i < Math.min(20, claims.length); i++) {
      const id = `cold-${i}`;
      await fx.client.createConversation(id);
      cold.push(await time(() => fx.client.startEnclosure(id)));
      await fx.client.stopEnclosure(id);
    }
    return row(
      "enclosure ready from the warm pool (StartEnclosure round trip)",
      claims,
      { name: "cold start of the same profile, same control plane", samples: cold },
      { digits: 0 },
    );
  } finally {
    await fx.close();
  }
}
