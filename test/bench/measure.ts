// What every benchmark shares: timing, median/p99 figures, and the row each measure reports (ours
// beside a peer measured in the same run). run-all.ts turns rows into the results file and table.
export interface Figures {
  median: number;
  p99: number;
}

export interface BenchRow {
  measure: string;
  /** "ms", "MiB", "enclosures", … */
  unit: string;
  ours: Figures;
  peer?: Figures & { name: string };
  /** Digits shown in the table. */
  digits?: number;
  note?: string;
  /** The raw samples behind the figures (results.json keeps them). */
  samples?: { ours: number[]; peer?: number[] };
}

/** Fewer samples than this and a row's p99 is not shown (it would be just the largest sample). */
export const MIN_SAMPLES_FOR_P99 = 20;

export function figures(samples: readonly number[]): Figures {
  if (samples.length === 0) return { median: Number.NaN, p99: Number.NaN };
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
  return { median: at(0.5), p99: at(0.99) };
}

/** Milliseconds one call of fn takes. */
export async function time(fn: () => Promise<unknown> | unknown): Promise<number> {
  const t = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - t) / 1e6;
}

/** n timed calls after a few untimed warm-up calls. */
export async function sample(n: number, fn: () => Promise<unknown> | unknown, warmup = Math.min(10, n)): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(await time(fn));
  return out;
}

/**
 * n samples of each of several calls, taken in turns of `block` calls each after `warmup` calls each:
 * a machine whose speed drifts during the run (a 2-core VM's neighbours, frequency) weighs on every
 * call alike, not on whichever was measured first.
 */
export async function interleaved<K extends string>(
  n: number,
  block: number,
  fns: Record<K, () => Promise<unknown>>,
  warmup: number,
): Promise<Record<K, number[]>> {
  const keys = Object.keys(fns) as K[];
  for (const k of keys) for (let i = 0; i < warmup; i++) await fns[k]();
  const out = Object.fromEntries(keys.map((k) => [k, [] as number[]])) as Record<K, number[]>;
  while (out[keys[0] as K].length < n) {
    for (const k of keys) {
      const take = Math.min(block, n - out[k].length);
      for (let i = 0; i < take; i++) out[k].push(await time(fns[k]));
    }
  }
  return out;
}

/** A row from raw samples: ours, and the peer's when there is one. */
export function row(
  measure: string,
  ours: readonly number[],
  peer?: { name: string; samples: readonly number[] },
  opts: { unit?: string; digits?: number; note?: string } = {},
): BenchRow {
  return {
    measure,
    unit: opts.unit ?? "ms",
    ours: figures(ours),
    peer: peer ? { name: peer.name, ...figures(peer.samples) } : undefined,
    digits: opts.digits,
    note: opts.note,
    samples: { ours: [...ours], ...(peer ? { peer: [...peer.samples] } : {}) },
  };
}
