// Diagnostics on write: wraps the write, edit, apply_patch and resolve tools so that, in a run wired with
// "lsp", each written file is synced and saved through its language server and the diagnostics the
// write newly introduced (per the run's ledger) are appended to the result. The write itself is
// never held up or failed by this: diagnostics that are late are left out, and the result says so.
import type { LspFileDiagnostics } from "../../../proto/gen/enclave/agent/v1/lsp.js";
import { LIMITS } from "../limits.js";
import type { Tool, ToolContext, ToolOutput } from "../tools/tool.js";
import type { DiagnosticsLedger } from "./diagnostics-ledger.js";
import { diagnosticLine, plural, reportable } from "./lsp-format.js";

/** Files a unified diff touches, from its `---`/`+++` headers (the agent has validated it already). */
export function patchedPaths(patch: string): string[] {
  const out: string[] = [];
  let oldPath: string | undefined;
  const clean = (raw: string): string | undefined => {
    const p = raw.replace(/\t.*$/, "").trim().replace(/^"(.*)"$/, "$1");
    if (p === "/dev/null") return undefined;
    return p.replace(/^[ab]\//, "");
  };
  for (const line of patch.split("\n")) {
    if (line.startsWith("--- ")) oldPath = clean(line.slice(4));
    else if (line.startsWith("+++ ")) {
      const p = clean(line.slice(4)) ?? oldPath;
      if (p && !out.includes(p)) out.push(p);
    }
  }
  return out;
}

const WRITTEN_PATHS: Record<string, (args: Record<string, unknown>) => string[]> = {
  write: (a) => [String(a.path)],
  edit: (a) => [String(a.path)],
  apply_patch: (a) => patchedPaths(String(a.patch)),
  // resolve's files come from the change it applied (ToolOutput.writtenPaths).
  resolve: () => [],
};

function waitMs(): number {
  const env = Number(process.env.ENCLAVE_LSP_DIAGNOSTICS_WAIT_MS);
  return Number.isFinite(env) && env > 0 ? env : LIMITS.lspWriteDiagnosticsWaitMs;
}

function describe(files: LspFileDiagnostics[], ledger: DiagnosticsLedger, ctx: ToolContext): string {
  const parts: string[] = [];
  for (const f of files) {
    if (f.state === "deleted") ledger.forget(ctx.run, f.path);
    else if (f.state === "late") {
      parts.push(`\`${f.path}\`: ${f.servers.join(", ") || "its language server"} had no fresh diagnostics within ${waitMs()} ms${f.detail ? ` (${f.detail})` : ""}; they are left out — ask with lsp diagnostics later`);
    } else if (f.state === "failed") parts.push(`\`${f.path}\`: diagnostics unavailable (${f.detail})`);
    else if (f.state === "fresh") {
      const fresh = ledger.update(ctx.run, f.path, f.diagnostics.filter(reportable));
      if (fresh.length === 0) continue;
      const shown = fresh.slice(0, LIMITS.lspDiagnosticsCap);
      parts.push(
        `${plural(fresh.length, "new diagnostic")} in \`${f.path}\` (${f.servers.join(", ")}):\n${shown.map(diagnosticLine).join("\n")}` +
          (fresh.length > shown.length ? `\n  [… ${fresh.length - shown.length} more; see lsp diagnostics]` : ""),
      );
    }
  }
  const checked = files.filter((f) => f.state === "fresh");
  if (parts.length === 0) return checked.length ? `No new diagnostics (${[...new Set(checked.flatMap((f) => f.servers))].join(", ")}).` : "";
  return parts.join("\n");
}

async function diagnosticsAfter(paths: string[], ctx: ToolContext, ledger: DiagnosticsLedger): Promise<string> {
  try {
    const { client } = await ctx.agent();
    const res = await client.lspSync({ paths, waitMs: waitMs() });
    return describe(res.files, ledger, ctx);
  } catch (err) {
    return `Diagnostics unavailable: ${(err as Error).message}`;
  }
}

function withDiagnostics(tool: Tool, pathsOf: (args: Record<string, unknown>) => string[], ledger: DiagnosticsLedger): Tool {
  return {
    ...tool,
    async invoke(args: unknown, ctx: ToolContext): Promise<ToolOutput> {
      const out = await tool.invoke(args, ctx);
      if (!ctx.run.resources.includes("lsp")) return out;
      const paths = (out.writtenPaths ?? pathsOf(args as Record<string, unknown>)).filter(Boolean);
      if (paths.length === 0) return out;
      const note = await diagnosticsAfter(paths, ctx, ledger);
      return note ? { parts: [...out.parts, { type: "text", text: note }] } : out;
    },
  };
}

/** The tools, with write, edit, apply_patch and resolve wrapped; others unchanged. */
export function withDiagnosticsOnWrite(tools: readonly Tool[], ledger: DiagnosticsLedger): Tool[] {
  return tools.map((t) => {
    const pathsOf = WRITTEN_PATHS[t.name];
    return pathsOf ? withDiagnostics(t, pathsOf, ledger) : t;
  });
}
