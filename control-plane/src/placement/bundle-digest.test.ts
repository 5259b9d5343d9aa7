// The agent bundle's digest is the same computed from the built folder and from the engine's archive
// of a volume holding exactly it, and differs for any file, mode or link more or less.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pack as tarPack } from "tar-stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { archiveDigest, EMPTY_DIGEST, folderDigest } from "./bundle-digest.js";

type Item = { name: string; type?: "file" | "directory" | "symlink"; mode?: number; body?: string; linkname?: string };

/** A tar as the engine gives a folder: every entry under the folder's own name. */
function archive(items: Item[]): Readable {
  const p = tarPack();
  p.entry({ name: "agent/", type: "directory", mode: 0o755 });
  for (const i of items) {
    if (i.type === "directory") p.entry({ name: `agent/${i.name}/`, type: "directory", mode: 0o755 });
    else if (i.type === "symlink") p.entry({ name: `agent/${i.name}`, type: "symlink", linkname: i.linkname ?? "" });
    else p.entry({ name: `agent/${i.name}`, mode: i.mode ?? 0o644 }, i.body ?? "");
  }
  p.finalize();
  return p as unknown as Readable;
}

const SAME: Item[] = [
  { name: "a.txt", body: "alpha\n" },
  { name: "kernels", type: "directory" },
  { name: "kernels/run.sh", mode: 0o755, body: "#!/bin/sh\n" },
  { name: ".complete", mode: 0o444, body: "complete\n" },
];
const skip = (rel: string): boolean => rel === ".complete";
let dir: string;
let digest: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "bundle-digest-"));
  writeFileSync(join(dir, "a.txt"), "alpha\n");
  mkdirSync(join(dir, "kernels"));
  writeFileSync(join(dir, "kernels", "run.sh"), "#!/bin/sh\n");
  chmodSync(join(dir, "a.txt"), 0o644);
  chmodSync(join(dir, "kernels", "run.sh"), 0o755);
  digest = await folderDigest(dir, skip);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("bundle digest", () => {
  it("is the same from the folder and from an archive of exactly its files (the skipped marker aside)", async () => {
    expect(await archiveDigest(archive(SAME), skip)).toBe(digest);
  });

  it("differs for a file more, a link, other bytes or other permission bits", async () => {
    const variants: Item[][] = [
      [...SAME, { name: "kernels/json.py", body: "x" }],
      [...SAME, { name: "kernels/json.py", type: "symlink", linkname: "/workspace/json.py" }],
      SAME.map((i) => (i.name === "a.txt" ? { ...i, body: "alpha!\n" } : i)),
      SAME.map((i) => (i.name === "kernels/run.sh" ? { ...i, mode: 0o777 } : i)),
      SAME.filter((i) => i.name !== "a.txt"),
    ];
    for (const v of variants) expect(await archiveDigest(archive(v), skip)).not.toBe(digest);
  });

  it("knows an empty folder", async () => {
    expect(await archiveDigest(archive([]))).toBe(EMPTY_DIGEST);
    expect(await archiveDigest(archive([{ name: "x", type: "directory" }]))).toBe(EMPTY_DIGEST);
  });
});
