// Loading custom tools from a folder: factories in the form docs/tools/custom-tools.md shows become registry tools with their
// tier (default exec) and JSON Schema; a module that fails is skipped and reported by file name.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadCustomTools } from "./custom-tool-loader.js";
import { rejected, TranscriptLog } from "@enclave/test-kit/transcript-log.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function folder(files: Record<string, string>): string {
  const d = mkdtempSync(join(tmpdir(), "custom-tools-"));
  dirs.push(d);
  for (const [name, body] of Object.entries(files)) writeFileSync(join(d, name), body);
  return d;
}

const tool = (extra: string): string =>
  `export default (pi) => ({ name: "t", label: "T", description: "d", parameters: pi.typebox.Type.Object({}), execute: () => ({ content: [] }), ${extra} });`;

describe("custom tool loader", () => {
  it("loads every module's tools, in file order, with their tiers and schemas", async () => {
    const d = folder({
      "b.mjs": `export default (pi) => [
        { name: "peek", label: "Peek", tier: "read", description: "d", parameters: pi.typebox.Type.Object({}), execute: () => ({ content: [] }) },
        { name: "poke", label: "Poke", resource: "shell", description: "d", parameters: pi.typebox.Type.Object({ n: pi.typebox.Type.Number() }), execute: () => "x" },
      ];`,
      "a.ts": `const f = (pi: { typebox: { Type: { Object(p: object): object } } }) => ({ name: "alpha", label: "A", tier: "write" as const, stagesOnly: true, description: "d", parameters: pi.typebox.Type.Object({}), execute: () => "a" });\nexport default f;`,
      "notes.txt": "not a module",
      "types.d.ts": "export type X = 1;",
    });
    const { tools, failures } = await loadCustomTools(d);
    expect(failures).toEqual([]);
    expect(tools.map((t) => [t.name, t.tier, t.resource, t.stagesOnly])).toEqual([
      ["alpha", "write", "workspace", true],
      ["peek", "read", "workspace", false],
      ["poke", "exec", "shell", false],
    ]);
    expect(tools[2]?.validate({ n: "x" })).toEqual({ ok: false, error: "invalid arguments for `poke`: `n` must be number" });
    expect(tools[2]?.inputSchema).toEqual({ type: "object", properties: { n: { type: "number" } }, required: ["n"] });
  });

  it("skips malformed modules, naming the file and what is wrong", async () => {
    // What each failure says is wrong, recorded whole, a header line per module.
    const log = new TranscriptLog();
    for (const change of ["no factory", `name: "Bad Name"`, `tier: "admin"`, `parameters: {}`, `label: ""`, `resource: "gpu"`]) {
      const body = change === "no factory" ? `export const x = 1;` : tool(change);
      const d = folder({ "tool.mjs": body, "ok.mjs": tool(`name: "fine"`) });
      const { tools, failures } = await loadCustomTools(d);
      expect(tools.map((t) => t.name)).toEqual(["fine"]);
      expect(failures).toHaveLength(1);
      expect(failures[0]?.file).toBe("tool.mjs");
      log.add(change, failures[0]?.reason ?? "");
    }
    await log.expect("transcripts/custom-tool-loader/malformed-modules.txt");
    await expectTranscript(await rejected(loadCustomTools("/nonexistent/custom-tools")), "transcripts/custom-tool-loader/cannot-be-read.txt");
  });
});
