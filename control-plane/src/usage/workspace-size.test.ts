// The workspace walk stays within its bounds whatever a tenant's workspace holds: many files, a deep
// tree, links that loop or lead out; and says when it stopped early.
import { linkSync, mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { walkWorkspace, WorkspaceSizes } from "./workspace-size.js";

const made: string[] = [];
function folder(): string {
  const d = mkdtempSync(join(tmpdir(), "enclave-walk-"));
  made.push(d);
  return d;
}
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const BIG = { maxEntries: 1_000_000, maxDepth: 1000, budgetMs: 60_000 };

describe("workspace walk", () => {
  it("counts allocated bytes, a hard-linked file once, a link as itself (never followed)", async () => {
    const d = folder();
    writeFileSync(join(d, "data.bin"), Buffer.alloc(1024 * 1024, 1));
    linkSync(join(d, "data.bin"), join(d, "same.bin"));
    mkdirSync(join(d, "sub"));
    symlinkSync(d, join(d, "sub", "loop"));
    symlinkSync("/usr", join(d, "out"));
    const w = await walkWorkspace(d, BIG);
    expect(w.capped).toBe(false);
    expect(w.note).toBe("");
    expect(w.entries).toBe(5);
    expect(w.bytes).toBeGreaterThanOrEqual(1024 * 1024);
    expect(w.bytes).toBeLessThan(2 * 1024 * 1024);
  });

  it("never counts a tree outside the workspace, even when a folder it listed is swapped for a link before it is opened", async () => {
    const d = folder();
    const outside = folder();
    writeFileSync(join(outside, "big.bin"), Buffer.alloc(8 * 1024 * 1024, 1));
    for (const sub of ["a", "b"]) {
      mkdirSync(join(d, sub));
      for (let i = 0; i < 600; i++) writeFileSync(join(d, sub, `f${i}`), "");
    }
    // The walk asks the time when it starts, then at its first yield, inside the first folder it
    // reads: then both folders become links to the outside tree (the one being read, and the one
    // listed but not opened yet).
    let calls = 0;
    let swapped = false;
    const now = (): number => {
      if (++calls === 2) {
        swapped = true;
        for (const sub of ["a", "b"]) {
          renameSync(join(d, sub), join(d, `${sub}.old`));
          symlinkSync(outside, join(d, sub));
        }
      }
      return Date.now();
    };
    const w = await walkWorkspace(d, BIG, now);
    expect(swapped).toBe(true);
    expect(w.bytes).toBeLessThan(4 * 1024 * 1024);
    expect(w.note).toContain("unreadable");
  });

  it("stops at its entry bound and says so", async () => {
    const d = folder();
    for (let i = 0; i < 3000; i++) writeFileSync(join(d, `f${i}`), "x");
    const w = await walkWorkspace(d, { ...BIG, maxEntries: 1000 });
    expect(w.capped).toBe(true);
    expect(w.entries).toBe(1000);
    expect(w.note).toMatch(/stopped after 1000 entries/);
  });

  it("stops at its time bound and says so", async () => {
    const d = folder();
    for (let i = 0; i < 3000; i++) writeFileSync(join(d, `f${i}`), "x");
    let t = 0;
    // A clock that moves 1 ms per reading (the walk reads it once per chunk of entries): past a 2 ms budget after three chunks.
    const w = await walkWorkspace(d, { ...BIG, budgetMs: 2 }, () => t++);
    expect(w.capped).toBe(true);
    expect(w.entries).toBeLessThan(3000);
    expect(w.note).toMatch(/stopped after 2 ms/);
  });

  it("does not enter folders past its depth bound, and says how many it left", async () => {
    const d = folder();
    let p = d;
    for (let i = 0; i < 40; i++) {
      p = join(p, "d");
      mkdirSync(p);
    }
    writeFileSync(join(p, "deepest"), "x");
    const w = await walkWorkspace(d, { ...BIG, maxDepth: 10 });
    expect(w.capped).toBe(true);
    expect(w.note).toMatch(/1 folder\(s\) deeper than 10 levels not entered/);
    expect(w.entries).toBe(11);
  });

  it("shares one measure among callers within its time, and measures again after", async () => {
    const sizes = new WorkspaceSizes(50);
    let walks = 0;
    const how = async () => {
      walks++;
      return { source: "walk" as const, bytes: walks, entries: 0, capped: false, note: "", measuredAtMs: Date.now() };
    };
    const [a, b] = await Promise.all([sizes.measure("c", how), sizes.measure("c", how)]);
    expect(a).toBe(b);
    expect(walks).toBe(1);
    await new Promise((r) => setTimeout(r, 60));
    expect((await sizes.measure("c", how)).bytes).toBe(2);
    // The metrics' way: the last finished measure, another queued when it is stale.
    await new Promise((r) => setTimeout(r, 60));
    expect(sizes.latest("c", how)?.bytes).toBe(2);
    await new Promise((r) => setTimeout(r, 10));
    expect(sizes.latest("c", how)?.bytes).toBe(3);
  });
});

describe("workspace measures at once", () => {
  it("runs at most the bound's walks at once, over every conversation", async () => {
    const sizes = new WorkspaceSizes(60_000, 2);
    let now = 0;
    let most = 0;
    const how = async () => {
      most = Math.max(most, ++now);
      await new Promise((r) => setTimeout(r, 20));
      now--;
      return { source: "walk" as const, bytes: 1, entries: 0, capped: false, note: "", measuredAtMs: Date.now() };
    };
    await Promise.all(Array.from({ length: 10 }, (_, i) => sizes.measure(`c${i}`, how)));
    expect(most).toBe(2);
  });
});
