// The file and ast tools declare what their results carry as data, and the diagnostics wrapper's
// `diagnostics` field is part of what the wrapped tools publish: a details object with it parses
// against the published schema, and would not against the wrapped tool's own (strict) schema.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { astEditTool } from "./ast/ast-edit.js";
import { astGrepTool } from "./ast/ast-grep.js";
import { resolveTool } from "./ast/resolve.js";
import { applyPatchTool } from "./builtin/apply-patch.js";
import { editTool } from "./builtin/edit.js";
import { execTool } from "./builtin/exec.js";
import { listTool } from "./builtin/list.js";
import { readTool } from "./builtin/read.js";
import { writeTool } from "./builtin/write.js";
import { DiagnosticsLedger } from "./lsp/diagnostics-ledger.js";
import { withDiagnosticsOnWrite } from "./lsp/diagnostics-on-write.js";
import type { Tool } from "./tool.js";

const TOOLS = [readTool, listTool, writeTool, editTool, applyPatchTool, execTool, astGrepTool, astEditTool, resolveTool];
const WRAPPED = ["write", "edit", "apply_patch", "resolve"];

function schemaOf(tool: Tool | undefined): z.ZodType {
  expect(tool?.detailsSchema, `${tool?.name} declares its details`).toBeDefined();
  return z.fromJSONSchema(tool?.detailsSchema as Parameters<typeof z.fromJSONSchema>[0]);
}

const WRITE_WITH_DIAGNOSTICS = {
  files: [{ path: "py/bad.py", change: "added", bytes: 51 }],
  diagnostics: {
    files: [{ path: "py/bad.py", state: "fresh", servers: ["pyright"], detail: "", new_count: 1, earlier_unknown: false }],
    new: [{ path: "py/bad.py", line: 5, column: 14, severity: "error", source: "Pyright", code: "reportAssignmentType", message: "…" }],
    truncated: false,
  },
};

describe("details schemas", () => {
  it("every file, shell and ast tool declares one: an object", () => {
    for (const t of TOOLS) expect(t.detailsSchema, t.name).toMatchObject({ type: "object" });
  });

  it("the write tools wrapped for diagnostics publish the optional diagnostics field; the others are unchanged", () => {
    const wrapped = withDiagnosticsOnWrite(TOOLS, new DiagnosticsLedger());
    for (const [i, t] of wrapped.entries()) {
      const own = TOOLS[i];
      if (!WRAPPED.includes(t.name)) {
        expect(t.detailsSchema, t.name).toBe(own?.detailsSchema);
        continue;
      }
      const props = t.detailsSchema?.properties as Record<string, unknown>;
      expect(Object.keys(props), t.name).toEqual([...Object.keys(own?.detailsSchema?.properties as Record<string, unknown>), "diagnostics"]);
      expect(t.detailsSchema?.required, t.name).toEqual(own?.detailsSchema?.required);
    }
    const write = wrapped.find((t) => t.name === "write");
    expect(schemaOf(write).safeParse(WRITE_WITH_DIAGNOSTICS).success).toBe(true);
    expect(schemaOf(write).safeParse({ files: WRITE_WITH_DIAGNOSTICS.files }).success).toBe(true);
    // The tool's own schema is strict: without the wrapper's field, these details would not be what it publishes.
    expect(schemaOf(writeTool).safeParse(WRITE_WITH_DIAGNOSTICS).success).toBe(false);
    const badState = { ...WRITE_WITH_DIAGNOSTICS, diagnostics: { ...WRITE_WITH_DIAGNOSTICS.diagnostics, files: [{ path: "x", state: "stale" }] } };
    expect(schemaOf(write).safeParse(badState).success).toBe(false);
  });
});
