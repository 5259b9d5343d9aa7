// Promise: a folder packed for an engine (a dev container's build context, a copy-mode workspace)
// yields only what lies below it. A tenant's agent may swap a folder for a link to elsewhere while
// the pack walks it: nothing is then listed or read through the link. The swap is made at a known
// point: the pack is held (backpressure) in the middle of a large file of the folder, the folder is
// replaced by a link to a folder of "secrets", and the rest of the walk must not read them.
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { extract } from "tar-stream";
import { afterEach, expect, it } from "vitest";
import { packFolder } from "@enclave/control-plane/placement/workspace-transfer.js";

let root = "";
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

/** Every entry of the pack as name -> text, calling `onHeader` (and awaiting it) before each body is read. */
async function entries(stream: Readable, onHeader: (name: string) => void): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const ex = extract();
  const done = new Promise<void>((resolve, reject) => {
    ex.on("entry", (header, body, next) => {
      onHeader(header.name);
      const chunks: Buffer[] = [];
      body.on("data", (c: unknown) => chunks.push(c as Buffer));
      body.on("end", () => {
        out.set(header.name, Buffer.concat(chunks).toString("latin1").slice(0, 64));
        next();
      });
      body.on("error", reject);
    });
    ex.on("finish", resolve);
    ex.on("error", reject);
    stream.on("error", reject);
  });
  stream.pipe(ex);
  await done;
  return out;
}

it("reads nothing through a folder swapped for a link while it is packed", async () => {
  root = mkdtempSync(join(tmpdir(), "pack-swap-"));
  const ws = join(root, "ws");
  const secrets = join(root, "secrets");
  mkdirSync(join(ws, "sub"), { recursive: true });
  mkdirSync(join(secrets, "deeper"), { recursive: true });
  // Sorted after a_big: the walk reaches them only once a_big's 8 MiB have been drained.
  writeFileSync(join(ws, "sub", "a_big"), Buffer.alloc(8 * 1024 * 1024, 1));
  writeFileSync(join(ws, "sub", "key"), "decoy");
  mkdirSync(join(ws, "sub", "deeper"));
  writeFileSync(join(secrets, "key"), "SECRET-KEY");
  writeFileSync(join(secrets, "deeper", "more"), "SECRET-MORE");
  writeFileSync(join(secrets, "only-there"), "SECRET-LISTED");

  const got = await entries(packFolder(ws, 0, 0), (name) => {
    if (name !== "sub/a_big") return;
    // Held inside sub's big file: sub now becomes a link to the secrets.
    renameSync(join(ws, "sub"), join(ws, "moved"));
    symlinkSync(secrets, join(ws, "sub"));
  });
  const texts = [...got.values()].join("\n");
  expect(texts).not.toContain("SECRET");
  expect([...got.keys()]).not.toContain("sub/only-there");
});
