// The growth bench at two tiny sizes, for real (a served control plane, host sandboxes with warm
// kernels, ipykernel peers): the rows it reports and the page made from them. No time is asserted.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { growthMeasure, growthRows } from "../bench/growth-bench.js";
import { growthPoints, writeGrowthPage } from "../bench/growth-page.js";
import type { BenchRow } from "../bench/measure.js";
import { describeMachine } from "../bench/report.js";

const ENV = {
  ENCLAVE_BENCH_GROWTH_SIZES: "3,6",
  ENCLAVE_BENCH_GROWTH_CALLS: "128",
  ENCLAVE_BENCH_GROWTH_PEER_MAX: "4",
  ENCLAVE_BENCH_CALLERS: "64",
};

describe("make bench, growth (sizes 3 and 6)", () => {
  let rows: BenchRow[] = [];
  const saved: Record<string, string | undefined> = {};
  beforeAll(async () => {
    for (const [k, v] of Object.entries(ENV)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
    rows = await growthRows();
  }, 120_000);
  afterAll(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it("reports each measure once per size, memory one sample per conversation, latency one per call", () => {
    for (const n of [3, 6]) {
      const at = (what: string): BenchRow | undefined => rows.find((r) => r.measure === growthMeasure(n, what));
      expect(at("memory per conversation, PSS")?.samples?.ours).toHaveLength(n);
      expect(at("memory per conversation, cgroup charge")?.samples?.ours).toHaveLength(n);
      expect(at("control-plane RSS")?.unit).toBe("MiB");
      expect(at("control-plane RSS above its idle start, per conversation")?.samples?.ours).toHaveLength(1);
      expect(at("read latency, 64 callers")?.samples?.ours).toHaveLength(128);
      expect(at("eval `1+1` latency, python, 64 callers")?.samples?.ours).toHaveLength(128);
      for (const r of rows.filter((x) => x.measure.startsWith(growthMeasure(n, "")))) expect(r.ours.median).toBeGreaterThan(0);
    }
    expect(rows).toHaveLength(12);
  });

  it("puts the peer beside memory and eval, capped at its most kernels", () => {
    const pss3 = rows.find((r) => r.measure === growthMeasure(3, "memory per conversation, PSS"));
    expect(pss3?.peer?.name).toMatch(/^3 ipykernel/);
    expect(pss3?.samples?.peer).toHaveLength(3);
    const eval6 = rows.find((r) => r.measure === growthMeasure(6, "eval `1+1` latency, python, 64 callers"));
    expect(eval6?.peer?.name).toMatch(/^4 ipykernel/);
    expect(eval6?.samples?.peer).toHaveLength(128);
    expect(rows.find((r) => r.measure === growthMeasure(6, "read latency, 64 callers"))?.peer).toBeUndefined();
  });

  it("makes the growth table and plot from the rows", () => {
    expect(growthPoints(rows).map((p) => p.n)).toEqual([3, 6]);
    const dir = mkdtempSync(join(tmpdir(), "growth-page-"));
    try {
      expect(writeGrowthPage({ machine: describeMachine(), rows }, dir)).toBe(true);
      const page = readFileSync(join(dir, "growth.md"), "utf8");
      expect(page).toContain("Largest size measured: 6 host conversations");
      expect(page.split("\n").filter((l) => /^\| [36] \|/.test(l))).toHaveLength(2);
      const svg = readFileSync(join(dir, "growth.svg"), "utf8");
      expect(svg.startsWith("<svg")).toBe(true);
      expect(svg.match(/<polyline/g)).toHaveLength(6);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
