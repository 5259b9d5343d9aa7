// Loading custom tools from a folder: valid factories become registry tools with their declared
// tier; malformed ones are refused with a message naming the file and what is wrong.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadCustomTools } from "../../control-plane/src/tools/custom/custom-tool-loader.js";

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

describe("custom tool loader", () => {
  it("loads every module's tools, in file order, with their tiers and schemas", async () => {
    const d = folder({
      "b.mjs": `export default (api) => [
        { name: "peek", tier: "read", description: "d", args: api.z.strictObject({}), run: () => "ok" },
        { name: "poke", tier: "exec", resource: "shell", description: "d", args: api.z.strictObject({ n: api.z.number() }), run: (a) => "n=" + a.n },
      ];`,
      "a.js": `export default (api) => ({ name: "alpha", tier: "write", stagesOnly: true, description: "d", args: api.z.strictObject({}), run: () => "a" });`,
      "notes.txt": "not a module",
    });
    const tools = await loadCustomTools(d);
    expect(tools.map((t) => [t.name, t.tier, t.resource, t.stagesOnly])).toEqual([
      ["alpha", "write", "workspace", true],
      ["peek", "read", "workspace", false],
      ["poke", "exec", "shell", false],
    ]);
    expect(tools[2]?.validate({ n: "x" }).ok).toBe(false);
    expect(tools[2]?.inputSchema).toMatchObject({ type: "object", properties: { n: { type: "number" } } });
  });

  it("refuses malformed definitions, naming the file", async () => {
    const cases: Array<[string, RegExp]> = [
      [`export const x = 1;`, /must default-export a factory/],
      [`export default (api) => ({ name: "Bad Name", tier: "read", description: "d", args: api.z.object({}), run: () => "" });`, /name `Bad Name` must be/],
      [`export default (api) => ({ name: "t", tier: "admin", description: "d", args: api.z.object({}), run: () => "" });`, /tier must be one of read, write, exec/],
      [`export default (api) => ({ name: "t", tier: "read", description: "d", args: {}, run: () => "" });`, /args must be a schema built with api.z/],
      [`export default (api) => ({ name: "t", tier: "read", resource: "gpu", description: "d", args: api.z.object({}), run: () => "" });`, /resource must be one of/],
    ];
    for (const [body, message] of cases) {
      const d = folder({ "tool.mjs": body });
      await expect(loadCustomTools(d)).rejects.toThrow(message);
      await expect(loadCustomTools(d)).rejects.toThrow(/tool\.mjs/);
    }
    await expect(loadCustomTools("/nonexistent/custom-tools")).rejects.toThrow(/cannot be read/);
  });
});
