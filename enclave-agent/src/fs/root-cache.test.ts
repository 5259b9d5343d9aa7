// The language servers' root lookup, remembered per folder while the folder's watch is quiet: a
// repeated lookup looks at no folder, and a marker made, removed or a folder replaced before a call
// is honoured by that call (it lets the event loop read the queued events first, as the Lsp service
// does).
import { mkdirSync, mkdtempSync, promises as fsp, renameSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { RootCache } from "./root-cache.js";
import { queuedEventsRead } from "../lsp/open-document-watch.js";

const base = mkdtempSync(join(tmpdir(), "enclave-root-cache-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const MARKERS = ["pyproject.toml", "setup.py"];

let n = 0;
let cache: RootCache | undefined;
afterEach(() => cache?.close());

/** A workspace with a marker at its root and a file's folder two levels down. */
function workspace(): { ws: string; deep: string } {
  const ws = join(base, `ws${n++}`);
  const deep = join(ws, "a", "b");
  mkdirSync(deep, { recursive: true });
  writeFileSync(join(ws, "pyproject.toml"), "");
  return { ws, deep };
}

/** What lies between a change and the next call: I/O (the call arriving), then the query's turn. */
async function nextCall(): Promise<void> {
  await fsp.stat(base);
  await queuedEventsRead();
}

describe("root cache", () => {
  it("a repeated lookup looks at no folder", () => {
    const { ws, deep } = workspace();
    cache = new RootCache(60_000);
    expect(cache.nearestRoot(MARKERS, deep, ws)).toBe(ws);
    const looks = cache.looks;
    expect(looks).toBe(3);
    for (let i = 0; i < 10; i++) expect(cache.nearestRoot(MARKERS, deep, ws)).toBe(ws);
    expect(cache.looks).toBe(looks);
  });

  it("a marker made later in a nearer folder is honoured by the next call", async () => {
    const { ws, deep } = workspace();
    cache = new RootCache(60_000);
    expect(cache.nearestRoot(MARKERS, deep, ws)).toBe(ws);
    writeFileSync(join(ws, "a", "setup.py"), "");
    await nextCall();
    expect(cache.nearestRoot(MARKERS, deep, ws)).toBe(join(ws, "a"));
    writeFileSync(join(deep, "pyproject.toml"), "");
    await nextCall();
    expect(cache.nearestRoot(MARKERS, deep, ws)).toBe(deep);
  });

  it("a marker removed is no longer a root for the next call", async () => {
    const { ws, deep } = workspace();
    writeFileSync(join(deep, "setup.py"), "");
    cache = new RootCache(60_000);
    expect(cache.nearestRoot(MARKERS, deep, ws)).toBe(deep);
    unlinkSync(join(deep, "setup.py"));
    await nextCall();
    expect(cache.nearestRoot(MARKERS, deep, ws)).toBe(ws);
    unlinkSync(join(ws, "pyproject.toml"));
    await nextCall();
    expect(cache.nearestRoot(MARKERS, deep, ws)).toBeUndefined();
  });

  it("a folder replaced by another (with a marker) is looked at afresh", async () => {
    const { ws, deep } = workspace();
    cache = new RootCache(60_000);
    expect(cache.nearestRoot(MARKERS, deep, ws)).toBe(ws);
    renameSync(join(ws, "a"), join(ws, "old-a"));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(ws, "a", "pyproject.toml"), "");
    await nextCall();
    expect(cache.nearestRoot(MARKERS, deep, ws)).toBe(join(ws, "a"));
    // And the new folders are watched in turn.
    writeFileSync(join(deep, "setup.py"), "");
    await nextCall();
    expect(cache.nearestRoot(MARKERS, deep, ws)).toBe(deep);
  });

  it("a folder that cannot be watched (not there yet) is looked at every time", async () => {
    const { ws } = workspace();
    const missing = join(ws, "c", "d");
    cache = new RootCache(60_000);
    expect(cache.nearestRoot(MARKERS, missing, ws)).toBe(ws);
    mkdirSync(missing, { recursive: true });
    writeFileSync(join(missing, "setup.py"), "");
    expect(cache.nearestRoot(MARKERS, missing, ws)).toBe(missing);
  });

  it("every folder is looked at again after the backstop interval", () => {
    const { ws, deep } = workspace();
    let now = 0;
    cache = new RootCache(1_000, () => now);
    cache.nearestRoot(MARKERS, deep, ws);
    const looks = cache.looks;
    now = 999;
    cache.nearestRoot(MARKERS, deep, ws);
    expect(cache.looks).toBe(looks);
    now = 1_000;
    cache.nearestRoot(MARKERS, deep, ws);
    expect(cache.looks).toBe(2 * looks);
  });
});
