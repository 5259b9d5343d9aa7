// The burst and rest benches at tiny sizes: each runs through against a real `enclave serve` (and
// the Jupyter peer) and reports its rows beside their peers. Structure only: no time is asserted.
import { afterEach, describe, expect, it } from "vitest";
import { burstRows } from "../bench/burst-bench.js";
import type { BenchRow } from "../bench/measure.js";
import { restRows } from "../bench/rest-bench.js";

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

function finite(r: BenchRow): boolean {
  return Number.isFinite(r.ours.median) && (r.peer === undefined || Number.isFinite(r.peer.median));
}

describe("the burst and rest benches, tiny", () => {
  it("burst: each of 3 first cells and the last, beside 3 ipykernels started at once", async () => {
    process.env.ENCLAVE_BENCH_BURST_N = "3";
    const rows = await burstRows();
    expect(rows.map((r) => r.measure.replace(/^burst: .*, /, ""))).toEqual(["time to each result", "time to the last result"]);
    expect(rows[0]?.samples?.ours).toHaveLength(3);
    expect(rows[0]?.samples?.peer).toHaveLength(3);
    expect(rows.every((r) => r.peer && finite(r))).toBe(true);
  }, 120_000);

  it("rest: memory, ListConversations and a sleeper's wake with 3 sleepers and 50 records, each beside its peer", async () => {
    Object.assign(process.env, { ENCLAVE_BENCH_REST_SLEEPERS: "3", ENCLAVE_BENCH_REST_RECORDS: "50", ENCLAVE_BENCH_REST_IDLE_SECONDS: "1" });
    const rows = await restRows();
    expect(rows).toHaveLength(7);
    expect(rows.every(finite)).toBe(true);
    expect(rows.filter((r) => r.peer).length).toBe(6);
    expect(rows.map((r) => r.unit)).toEqual(["MiB", "KiB", "ms/s", "ms", "ms", "ms", "ms"]);
    expect(rows[3]?.measure).toMatch(/53 conversations held/);
    // Every sleeper that exists may be woken: 3 of them here.
    expect(rows[6]?.samples?.ours).toHaveLength(3);
    expect(rows[6]?.samples?.peer).toHaveLength(3);
  }, 120_000);
});
