import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordedWorkspacePrefixes } from "./recorded-workspace-prefix.js";

describe("recordedWorkspacePrefixes", () => {
  let dir: string;
  let ws: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "recorded-prefix-"));
    ws = join(dir, "ws");
    mkdirSync(join(ws, "bin"), { recursive: true });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const program = (name: string, bytes: Buffer) => writeFileSync(join(ws, "bin", name), bytes);

  it("finds the workspace's host path as a folder name, wherever the file's chunks split it", async () => {
    // Straddling the 4 MiB read: the name is found across two reads.
    const at = 4 * 1024 * 1024 - 5;
    const big = Buffer.alloc(at + ws.length + 16);
    Buffer.from(`${ws}/src\0`).copy(big, at);
    program("split", big);
    expect(await recordedWorkspacePrefixes(ws, "bin/split")).toEqual([ws]);
    program("nul", Buffer.from(`\0\0${ws}\0\0`));
    expect(await recordedWorkspacePrefixes(ws, "bin/nul")).toEqual([ws]);
  });

  it("finds nothing in a program that does not record it, or only a longer name", async () => {
    program("other", Buffer.from(`\0/workspace/src\0${ws}-other/src\0`));
    expect(await recordedWorkspacePrefixes(ws, "bin/other")).toEqual([]);
  });

  it("reads nothing through a link, outside the workspace, or that is no file", async () => {
    writeFileSync(join(dir, "outside"), `${ws}/x\0`);
    symlinkSync(join(dir, "outside"), join(ws, "bin", "link"));
    expect(await recordedWorkspacePrefixes(ws, "bin/link")).toEqual([]);
    symlinkSync(dir, join(ws, "dirlink"));
    expect(await recordedWorkspacePrefixes(ws, "dirlink/outside")).toEqual([]);
    expect(await recordedWorkspacePrefixes(ws, "../outside")).toEqual([]);
    expect(await recordedWorkspacePrefixes(ws, "bin")).toEqual([]);
    expect(await recordedWorkspacePrefixes(ws, "bin/missing")).toEqual([]);
  });
});
