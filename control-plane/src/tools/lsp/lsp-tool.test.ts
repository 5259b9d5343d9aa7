// The lsp tool's schema is its rule: one branch per action, discriminated by `action`, so the schema
// a model lists is what validation enforces; a call that misses a field is told which, for which action.
import { describe, expect, it } from "vitest";
import { DiagnosticsLedger } from "./diagnostics-ledger.js";
import { lspTool } from "./lsp-tool.js";
import { resumeDeadlineMs } from "../../agent-client/debug-service-client.js";
import { LIMITS } from "../../limits.js";
import { createDebugTool } from "../debug/debug-tool.js";
import { TranscriptLog } from "@enclave/test-kit/transcript-log.js";

const tool = lspTool(new DiagnosticsLedger());
const POSITIONAL = ["definition", "type_definition", "implementation", "references", "hover", "code_actions"];
const ALL = [...POSITIONAL, "diagnostics", "symbols", "status", "reload"];

function error(args: unknown): string {
  const r = tool.validate(args);
  if (r.ok) throw new Error(`expected ${JSON.stringify(args)} to be refused`);
  return r.error;
}

function accepts(args: Record<string, unknown>): void {
  const r = tool.validate(args);
  expect(r, JSON.stringify(args)).toEqual({ ok: true, args });
}

interface Branch {
  properties: Record<string, { const?: string }>;
  required?: string[];
  additionalProperties?: boolean;
  anyOf?: { required: string[] }[];
}

describe("the lsp schema a model sees", () => {
  const branches = (tool.inputSchema as { oneOf?: Branch[] }).oneOf ?? [];
  const branch = (name: string): Branch => {
    const b = branches.find((x) => x.properties.action?.const === name);
    if (!b) throw new Error(`no branch for ${name}`);
    return b;
  };

  it("is a oneOf with one branch per action, each with its action as a const", () => {
    expect(branches.map((b) => b.properties.action?.const).sort()).toEqual([...ALL].sort());
    for (const b of branches) expect(b.additionalProperties).toBe(false);
  });

  it("requires file, line and symbol for every positional action, and only file for diagnostics", () => {
    for (const name of POSITIONAL) {
      expect(branch(name).required?.sort(), name).toEqual(["action", "file", "line", "symbol"]);
      expect(Object.keys(branch(name).properties).sort()).toEqual(["action", "file", "line", "symbol"]);
    }
    expect(branch("diagnostics").required?.sort()).toEqual(["action", "file"]);
    expect(branch("status").required).toEqual(["action"]);
    expect(Object.keys(branch("status").properties)).toEqual(["action"]);
    expect(branch("reload").required).toEqual(["action"]);
  });

  it("says symbols needs query or file", () => {
    expect(branch("symbols").required).toEqual(["action"]);
    expect(branch("symbols").anyOf).toEqual([{ required: ["query"] }, { required: ["file"] }]);
  });
});

describe("what lsp accepts and refuses", () => {
  it("accepts every action's valid shape", () => {
    for (const action of POSITIONAL) {
      accepts({ action, file: "py/app.py", line: 3, symbol: "greet" });
      accepts({ action, file: "py/app.py", line: 3, symbol: "greet#2" });
    }
    accepts({ action: "diagnostics", file: "py/app.py" });
    accepts({ action: "diagnostics", file: "*" });
    accepts({ action: "symbols", query: "Circle" });
    accepts({ action: "symbols", file: "ts/shapes.ts" });
    accepts({ action: "symbols", query: "Circle", file: "ts/main.ts" });
    accepts({ action: "status" });
    accepts({ action: "reload" });
    accepts({ action: "reload", file: "py/app.py" });
  });

  // Validation has one outcome (invalid_arguments); what tells the cases apart is what each refusal
  // says, so each test's refusals are one recorded transcript, a header line per call.
  const refusals = async (name: string, cases: unknown[]): Promise<void> => {
    const log = new TranscriptLog();
    for (const args of cases) log.add(JSON.stringify(args), error(args));
    await log.expect(`transcripts/lsp-schema/${name}.txt`);
  };

  it("names the missing field and why, for the action asked", async () => {
    const cases: unknown[] = [];
    for (const action of POSITIONAL) {
      cases.push({ action, line: 3, symbol: "greet" }, { action, file: "a.py", symbol: "greet" }, { action, file: "a.py", line: 3 });
      // Every missing field is named at once.
      cases.push({ action });
    }
    cases.push({ action: "diagnostics" }, { action: "symbols" });
    await refusals("missing-fields", cases);
  });

  it("refuses fields an action does not take", async () => {
    await refusals("unknown-fields", [
      { action: "status", file: "a.py" },
      { action: "hover", file: "a.py", line: 1, symbol: "x", query: "x" },
      { action: "diagnostics", file: "a.py", line: 2 },
      { action: "reload", symbol: "x" },
    ]);
  });

  it('keeps "*" for diagnostics alone', async () => {
    await refusals("star-file", [
      ...POSITIONAL.map((action) => ({ action, file: "*", line: 1, symbol: "x" })),
      { action: "symbols", file: "*" },
      { action: "reload", file: "*" },
    ]);
  });

  it("refuses wrong types, lines below 1, empty strings, and an unknown or missing action", async () => {
    await refusals("bad-values", [
      { action: "hover", file: "a.py", line: "3", symbol: "x" },
      { action: "hover", file: "a.py", line: 0, symbol: "x" },
      { action: "hover", file: "a.py", line: 1.5, symbol: "x" },
      { action: "hover", file: "a.py", line: 1, symbol: "" },
      { action: "symbols", query: "" },
      { action: "rename", file: "a.py" },
      { file: "a.py" },
      "hover",
    ]);
  });
});

describe("the debug tool's description", () => {
  it("states the configured TTL, not a fixed one", () => {
    expect(createDebugTool({ sessionTtlMs: 30 * 60_000 }).description).toContain("hard TTL 30 min");
    expect(createDebugTool({ sessionTtlMs: 5 * 60_000 }).description).toContain("hard TTL 5 min");
    expect(createDebugTool({ sessionTtlMs: 4_000 }).description).toContain("hard TTL 4 s");
  });

  it("takes adapter ids as the agent names them, not from a copy here", () => {
    const debug = createDebugTool({ sessionTtlMs: 60_000 });
    expect(debug.validate({ op: "launch", program: "a.py", adapter: "some-new-adapter" }).ok).toBe(true);
    expect(debug.validate({ op: "attach", port: 5678, adapter: "some-new-adapter" }).ok).toBe(true);
    expect(debug.validate({ op: "launch", program: "a.py", adapter: "" }).ok).toBe(false);
  });
});

describe("a resume's wait", () => {
  it("states the default wait this side sends, and a call's deadline outlasts the longest wait the schema allows", () => {
    const debug = createDebugTool({ sessionTtlMs: 60_000 });
    const branch = (
      debug.inputSchema as { oneOf: { properties: { op: { const: string }; wait_seconds?: { maximum: number; description: string } } }[] }
    ).oneOf.find((b) => b.properties.op.const === "continue");
    expect(branch?.properties.wait_seconds?.description).toContain(`(default ${LIMITS.debugStopWaitSeconds})`);
    const longest = (branch?.properties.wait_seconds?.maximum ?? 0) * 1000;
    expect(longest).toBeGreaterThan(0);
    expect(resumeDeadlineMs(longest)).toBeGreaterThan(longest);
    expect(resumeDeadlineMs(0)).toBe(LIMITS.debugLaunchCallTimeoutMs);
  });
});
