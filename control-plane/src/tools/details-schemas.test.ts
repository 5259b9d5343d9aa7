// The lsp and debug details are unions put together by hand, one named schema per kind of answer:
// every action and op must answer with a branch the published schema has.
import { describe, expect, it } from "vitest";
import { DiagnosticsLedger } from "./lsp/diagnostics-ledger.js";
import { lspTool } from "./lsp/lsp-tool.js";
import { createDebugTool, DEBUG_OPS } from "./debug/debug-tool.js";

type Discriminated = { oneOf?: { properties: Record<string, { const?: string; enum?: string[] }> }[] };

function discriminators(schema: Record<string, unknown> | undefined, key: string): string[] {
  return ((schema as Discriminated | undefined)?.oneOf ?? []).flatMap((b) => {
    const p = b.properties[key];
    return p?.enum ?? (p?.const !== undefined ? [p.const] : []);
  });
}

describe("the details schemas ListTools publishes", () => {
  it("lsp: one branch for every action, each action in exactly one", () => {
    const tool = lspTool(new DiagnosticsLedger());
    const actions = (tool.inputSchema as Discriminated).oneOf?.map((b) => b.properties.action?.const ?? "") ?? [];
    expect(actions).toHaveLength(10);
    expect(discriminators(tool.detailsSchema, "action").sort()).toEqual([...actions].sort());
  });

  it("debug: one branch for every op, each op in exactly one", () => {
    const tool = createDebugTool({ sessionTtlMs: 60_000 });
    expect(discriminators(tool.detailsSchema, "op").sort()).toEqual(DEBUG_OPS.map((o) => o.op).sort());
  });
});
