import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
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
