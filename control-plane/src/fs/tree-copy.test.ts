import { spawn } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ArchiveLimitError } from "./archive-unpack.js";
import { copyTree } from "./tree-copy.js";

describe("copyTree's bounds", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "tree-copy-"));
    mkdirSync(join(dir, "src", "sub"), { recursive: true });
    mkdirSync(join(dir, "dst"));
    for (let i = 0; i < 10; i++) writeFileSync(join(dir, "src", "sub", `f${i}`), Buffer.alloc(1000, 1));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("copies within the bounds and counts what it copied", async () => {
    const r = await copyTree(join(dir, "src"), join(dir, "dst"), { maxBytes: 10_000, maxEntries: 11 });
    expect(r).toMatchObject({ files: 10, directories: 1, bytes: 10_000, skippedTotal: 0 });
    expect(readdirSync(join(dir, "dst", "sub"))).toHaveLength(10);
  });

  it("refuses one byte past maxBytes, and one entry past maxEntries, with the limit named", async () => {
    await expect(copyTree(join(dir, "src"), join(dir, "dst"), { maxBytes: 9_999, maxEntries: 100 })).rejects.toMatchObject({ limit: "bytes", max: 9_999 });
    rmSync(join(dir, "dst"), { recursive: true });
    mkdirSync(join(dir, "dst"));
    const err = await copyTree(join(dir, "src"), join(dir, "dst"), { maxBytes: 1e9, maxEntries: 10 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ArchiveLimitError);
    expect(err).toMatchObject({ limit: "entries", max: 10 });
  });

  it("refuses a source or destination that is a link", async () => {
    symlinkSync(join(dir, "src"), join(dir, "src-link"));
    await expect(copyTree(join(dir, "src-link"), join(dir, "dst"), { maxBytes: 1e9, maxEntries: 100 })).rejects.toMatchObject({ code: "ELOOP" });
  });
});

describe("copyTree against a tree its code grows while it is read", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "tree-copy-grow-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // The source's code (a thread of a host-placement kernel, say) makes its files empty for a moment
  // and sparse-huge the rest of the time: a file seen empty and copied whole would have the control
  // plane write zeros it never counted (a terabyte of them as easily as 8 MiB).
  const TOGGLER = `
    const fs = require("node:fs");
    const [dir, n, big] = process.argv.slice(1);
    const files = Array.from({ length: Number(n) }, (_, i) => dir + "/g" + i);
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (;;) {
      for (const f of files) fs.truncateSync(f, 0);
      for (const f of files) fs.truncateSync(f, Number(big));
      Atomics.wait(pause, 0, 0, 2);
    }`;

  it("copies no file past the size it counted, and keeps a sparse file sparse", async () => {
    const src = join(dir, "src");
    mkdirSync(src);
    const files = 32;
    const big = 8 * 1024 * 1024;
    for (let i = 0; i < files; i++) writeFileSync(join(src, `g${i}`), "");
    const toggler = spawn(process.execPath, ["-e", TOGGLER, src, String(files), String(big)], { stdio: "ignore" });
    try {
      // The toggler runs (a file seen at its big size) before the copies start.
      const started = Date.now();
      while (!readdirSync(src).some((f) => statSync(join(src, f)).size === big)) {
        if (Date.now() - started > 10_000) throw new Error("the toggler did not start");
        await new Promise((r) => setTimeout(r, 10));
      }
      for (let round = 0; round < 8; round++) {
        const into = join(dir, `copy${round}`);
        mkdirSync(into);
        const r = await copyTree(src, into, { maxBytes: 1024 ** 3, maxEntries: 1000 });
        let copied = 0;
        let blocks = 0;
        for (const name of readdirSync(into)) {
          const st = lstatSync(join(into, name));
          copied += st.size;
          blocks += st.blocks * 512;
        }
        expect(copied, `round ${round}: bytes in the copy against bytes counted`).toBeLessThanOrEqual(r.bytes);
        // Holes stay holes: nothing of the zeros is written.
        expect(blocks, `round ${round}: allocated bytes of the copy`).toBeLessThan(files * 64 * 1024);
        rmSync(into, { recursive: true, force: true });
      }
    } finally {
      toggler.kill();
    }
    expect(statSync(src).isDirectory()).toBe(true);
  });
});
