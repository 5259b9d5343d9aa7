// The one careful unpacker and the link-refusing move, at their seam: hostile tar streams built here
// entry by entry, unpacked into a fresh folder and moved into a destination that holds planted links.
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { type Header, pack as tarPack } from "tar-stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ArchiveLimitError, linkStaysInside, MAX_REPORTED, unpackTar } from "./archive-unpack.js";
import { moveTreeInto } from "./tree-move.js";

type Entry = Partial<Header> & { name: string; body?: Buffer };

function tarOf(entries: Entry[]): Readable {
  const pack = tarPack();
  void (async () => {
    for (const { body, ...header } of entries) {
      await new Promise<void>((ok, fail) => pack.entry(header, body ?? "", (err) => (err ? fail(err) : ok())));
    }
    pack.finalize();
  })();
  return pack as unknown as Readable;
}

let base: string;
let into: string;
let outside: string;
const limits = { maxBytes: 1024 ** 3, maxEntries: 1000 };

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), "unpack-test-"));
  into = join(base, "into");
  outside = join(base, "outside");
  mkdirSync(into);
  mkdirSync(outside);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe("unpackTar", () => {
  it("never writes through a link the archive made: ./d -> outside, then ./d/PWNED.txt", async () => {
    const report = await unpackTar(
      tarOf([
        { name: "./", type: "directory" },
        { name: "./d", type: "symlink", linkname: outside },
        { name: "./d/PWNED.txt", type: "file", body: Buffer.from("pwned") },
        { name: "./e", type: "symlink", linkname: "../outside" },
        { name: "./e/PWNED2.txt", type: "file", body: Buffer.from("pwned") },
      ]),
      into,
      { depthBelowRoot: 0, stripPrefix: ".", ...limits },
    );
    expect(existsSync(join(outside, "PWNED.txt"))).toBe(false);
    expect(existsSync(join(outside, "PWNED2.txt"))).toBe(false);
    expect(existsSync(join(into, "d"))).toBe(false);
    expect(report.skipped.map((s) => [s.path, s.kind])).toEqual([
      ["d", "link_outside"],
      ["d/PWNED.txt", "not_made"],
      ["e", "link_outside"],
      ["e/PWNED2.txt", "not_made"],
    ]);
  });

  it("makes links that stay inside, hard links to files it brought, and reports FIFOs and foreign hard links", async () => {
    const report = await unpackTar(
      tarOf([
        { name: "a/b/file.txt", type: "file", body: Buffer.from("x"), mode: 0o4755 },
        { name: "a/b/up", type: "symlink", linkname: "../../a" },
        { name: "a/twin.txt", type: "link", linkname: "a/b/file.txt" },
        { name: "stranger", type: "link", linkname: "/etc/passwd" },
        { name: "pipe", type: "fifo" },
        { name: "dev", type: "character-device", devmajor: 1, devminor: 3 },
      ]),
      into,
      { depthBelowRoot: 0, ...limits },
    );
    expect(readlinkSync(join(into, "a/b/up"))).toBe("../../a");
    expect(statSync(join(into, "a/twin.txt")).ino).toBe(statSync(join(into, "a/b/file.txt")).ino);
    expect(statSync(join(into, "a/b/file.txt")).mode & 0o7777).toBe(0o755);
    expect(report.skipped.map((s) => [s.path, s.kind])).toEqual([
      ["stranger", "hard_link"],
      ["pipe", "special_file"],
      ["dev", "special_file"],
    ]);
  });

  it("streams zero runs as holes and stops at the byte limit, which counts bytes written, not holes", async () => {
    const big = Buffer.alloc(8 * 1024 * 1024);
    big.write("end", big.length - 3);
    await unpackTar(tarOf([{ name: "sparse.bin", type: "file", body: big }]), into, { depthBelowRoot: 0, ...limits });
    const st = statSync(join(into, "sparse.bin"));
    expect(st.size).toBe(big.length);
    expect(st.blocks * 512).toBeLessThan(1024 * 1024);
    expect(readFileSync(join(into, "sparse.bin")).subarray(-3).toString()).toBe("end");
    // Two mostly-hole files of 8 MiB each fit a limit of 1 MiB written...
    const holes = mkdtempSync(join(base, "holes-"));
    const report = await unpackTar(
      tarOf([
        { name: "a", type: "file", body: big },
        { name: "b", type: "file", body: big },
      ]),
      holes,
      { depthBelowRoot: 0, maxBytes: 1024 * 1024, maxEntries: 1000 },
    );
    expect(report.bytes).toBeLessThan(1024 * 1024);
    expect(report.apparentBytes).toBe(2 * big.length);
    // ...but not a limit on what the archive states, holes included.
    const stated = mkdtempSync(join(base, "stated-"));
    const apparent = await unpackTar(
      tarOf([
        { name: "a", type: "file", body: big },
        { name: "b", type: "file", body: big },
      ]),
      stated,
      {
        depthBelowRoot: 0,
        maxBytes: 1024 * 1024,
        maxApparentBytes: big.length + 1,
        maxEntries: 1000,
      },
    ).catch((err: unknown) => err);
    expect(apparent).toBeInstanceOf(ArchiveLimitError);
    expect((apparent as ArchiveLimitError).limit).toBe("apparent");
    // Data past the limit written is refused.
    const full = Buffer.alloc(big.length, 1);
    const again = mkdtempSync(join(base, "again-"));
    const written = await unpackTar(
      tarOf([
        { name: "a", type: "file", body: full },
        { name: "b", type: "file", body: full },
      ]),
      again,
      {
        depthBelowRoot: 0,
        maxBytes: full.length + 1,
        maxEntries: 1000,
      },
    ).catch((err: unknown) => err);
    expect(written).toBeInstanceOf(ArchiveLimitError);
    expect((written as ArchiveLimitError).limit).toBe("bytes");
  });
  it("lists at most MAX_REPORTED entries not made and counts the rest; deep trees unpack", async () => {
    const fifos: Entry[] = Array.from({ length: MAX_REPORTED + 5 }, (_, i) => ({ name: `p${i}`, type: "fifo" }));
    const deep = Array.from({ length: 200 }, (_, i) => `d${i}`).reduce<string[]>((acc, p) => [...acc, acc.length ? `${acc[acc.length - 1]}/${p}` : p], []);
    const report = await unpackTar(
      tarOf([...fifos, ...deep.map((name): Entry => ({ name, type: "directory" })), { name: `${deep[199]}/leaf`, type: "file", body: Buffer.from("x") }]),
      into,
      {
        depthBelowRoot: 0,
        ...limits,
        maxEntries: 10_000,
      },
    );
    expect(report.skipped).toHaveLength(MAX_REPORTED);
    expect(report.skippedTotal).toBe(MAX_REPORTED + 5);
    expect(readFileSync(join(into, deep[199] as string, "leaf"), "utf8")).toBe("x");
  });
});

describe("linkStaysInside", () => {
  it("accepts leading climbs within the tree, refuses absolute targets and climbs after a name", () => {
    expect(linkStaysInside(["x"], "y")).toBe(true);
    expect(linkStaysInside(["a", "x"], "../y")).toBe(true);
    expect(linkStaysInside(["x"], "../y")).toBe(false);
    expect(linkStaysInside(["x"], "/etc")).toBe(false);
    expect(linkStaysInside(["x"], "self/../../etc")).toBe(false);
    expect(linkStaysInside(["x"], "self/../y")).toBe(false);
    expect(linkStaysInside(["x"], "")).toBe(false);
  });
});

describe("moveTreeInto", () => {
  it("replaces links planted in the destination instead of following them, and mirrors deletions", async () => {
    const dest = join(base, "dest");
    mkdirSync(dest);
    symlinkSync(outside, join(dest, "d"));
    writeFileSync(join(dest, "gone.txt"), "old");
    mkdirSync(join(into, "d"));
    writeFileSync(join(into, "d", "new.txt"), "new");
    await moveTreeInto(into, dest, { mirror: true });
    expect(lstatSync(join(dest, "d")).isDirectory()).toBe(true);
    expect(readFileSync(join(dest, "d", "new.txt"), "utf8")).toBe("new");
    expect(existsSync(join(outside, "new.txt"))).toBe(false);
    expect(existsSync(join(dest, "gone.txt"))).toBe(false);
  });
});
