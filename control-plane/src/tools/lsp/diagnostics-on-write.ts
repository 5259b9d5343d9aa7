// Diagnostics on write: wraps the write, edit, apply_patch and resolve tools so that, in a run wired with
// "lsp", each written file is synced and saved through its language server and the diagnostics the
// write newly introduced (per the run's ledger) are appended to the result. "Newly" is relative to
// the file just before the write: a file the run's ledger has not seen yet is first seeded with the
// server's diagnostics for it as it is on disk, so its old errors are not reported as the write's.
// The write itself is never held up or failed by this: diagnostics that are late are left out, and
// the result says so.
import { posix } from "node:path";
import { z } from "zod";
import { type FilePatch, PatchError, parseUnifiedDiff } from "@enclave/proto/unified-diff.js";
import { LspDiagnosticsState, type LspDiagnostic, type LspFileDiagnostics } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { LIMITS } from "../../limits.js";
import type { Tool, ToolContext, ToolOutput } from "../tool.js";
import type { DiagnosticsLedger } from "./diagnostics-ledger.js";
import { diagnosticLine, plural, reportable } from "./lsp-format.js";

/**
 * Files a unified diff touches, as the agent's parser reads it (the agent validates it again and
 * refuses a patch that does not parse, so none is named then): a rename names both its files.
 */
export function patchedPaths(patch: string): string[] {
  let files: FilePatch[];
  try {
    files = parseUnifiedDiff(patch);
  } catch (err) {
    if (err instanceof PatchError) return [];
    throw err;
  }
  const out = new Set<string>();
  for (const f of files) {
    if (f.rename && f.oldPath !== null) out.add(f.oldPath);
    const p = f.newPath ?? f.oldPath;
    if (p !== null) out.add(p);
  }
  return [...out];
}

type PathsOf = (args: Record<string, unknown>, ctx: ToolContext) => string[];

/** The files resolve is about to write: those its pending action names, when it applies one. */
function resolvedPaths(args: Record<string, unknown>, ctx: ToolContext): string[] {
  if (args.action === "discard" || !ctx.pending?.hasPending) return [];
  const action = args.edit_id === undefined ? ctx.pending.peek() : ctx.pending.lookup(String(args.edit_id));
  return action?.files ?? [];
}

const WRITTEN_PATHS: Record<string, PathsOf> = {
  write: (a) => [String(a.path)],
  edit: (a) => [String(a.path)],
  apply_patch: (a) => patchedPaths(String(a.patch)),
  // resolve's files: those its pending action names (and, after, ToolOutput.writtenPaths).
  resolve: resolvedPaths,
};

export function diagnosticsWaitMs(): number {
  const env = Number(process.env.ENCLAVE_LSP_DIAGNOSTICS_WAIT_MS);
  return Number.isFinite(env) && env > 0 ? env : LIMITS.lspWriteDiagnosticsWaitMs;
}

/** A workspace-relative path as the agent reports it (for asking the ledger before the agent has). */
function normalized(path: string): string {
  return posix.normalize(path).replace(/^\.\//, "");
}

/**
 * Seeds the ledger from diagnostics taken before a change. Returns the files whose earlier
 * diagnostics stay unknown (late, failed), so what is reported for them later can say so.
 */
export function seedLedger(files: readonly LspFileDiagnostics[], ledger: DiagnosticsLedger, ctx: Pick<ToolContext, "run">): Set<string> {
  const unknown = new Set<string>();
  for (const f of files) {
    if (ledger.has(ctx.run, f.path)) continue;
    if (f.state === LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_FRESH) ledger.seed(ctx.run, f.path, f.diagnostics.filter(reportable));
    else if (f.state === LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_DELETED) ledger.seed(ctx.run, f.path, []);
    else if (f.state === LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_LATE || f.state === LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_FAILED) unknown.add(f.path);
  }
  return unknown;
}

/** Asks the server for the diagnostics of the files the run has not seen yet, as they are now. */
async function seedBefore(paths: string[], ctx: ToolContext, ledger: DiagnosticsLedger): Promise<Set<string>> {
  const unseen = [...new Set(paths.map(normalized))].filter((p) => !ledger.has(ctx.run, p));
  if (unseen.length === 0) return new Set();
  try {
    const { client } = await ctx.agent();
    const res = await client.lspSync({ paths: unseen, waitMs: diagnosticsWaitMs() });
    return seedLedger(res.files, ledger, ctx);
  } catch {
    return new Set(unseen);
  }
}

/**
 * Words what a sync found, updating the run's ledger; `onFresh` also gets, per checked file, the
 * diagnostics new to the ledger.
 */
export function describe(
  files: LspFileDiagnostics[],
  ledger: DiagnosticsLedger,
  ctx: Pick<ToolContext, "run">,
  unknownBefore: Set<string>,
  onFresh: (path: string, fresh: LspDiagnostic[]) => void = () => undefined,
): string {
  const parts: string[] = [];
  for (const f of files) {
    if (f.state === LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_DELETED) ledger.forget(ctx.run, f.path);
    else if (f.state === LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_LATE) {
      parts.push(
        `\`${f.path}\`: ${f.servers.join(", ") || "its language server"} had no fresh diagnostics within ${diagnosticsWaitMs()} ms${f.detail ? ` (${f.detail})` : ""}; they are left out — ask with lsp diagnostics later`,
      );
    } else if (f.state === LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_FAILED) parts.push(`\`${f.path}\`: diagnostics unavailable (${f.detail})`);
    else if (f.state === LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_FRESH) {
      const fresh = ledger.update(ctx.run, f.path, f.diagnostics.filter(reportable));
      onFresh(f.path, fresh);
      if (fresh.length === 0) continue;
      const shown = fresh.slice(0, LIMITS.lspDiagnosticsCap);
      const caveat = unknownBefore.has(f.path) ? " (its diagnostics before this change were not known in time, so some may predate it)" : "";
      parts.push(
        `${plural(fresh.length, "new diagnostic")} in \`${f.path}\` (${f.servers.join(", ")})${caveat}:\n${shown.map(diagnosticLine).join("\n")}` +
          (fresh.length > shown.length ? `\n  [… ${fresh.length - shown.length} more; see lsp diagnostics]` : ""),
      );
    }
  }
  const checked = files.filter((f) => f.state === LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_FRESH);
  if (parts.length === 0) return checked.length ? `No new diagnostics (${[...new Set(checked.flatMap((f) => f.servers))].join(", ")}).` : "";
  return parts.join("\n");
}

const FILE_STATES = ["fresh", "late", "no_server", "deleted", "failed"] as const;
type FileState = (typeof FILE_STATES)[number];

const STATE_NAMES: Partial<Record<LspDiagnosticsState, FileState>> = {
  [LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_FRESH]: "fresh",
  [LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_LATE]: "late",
  [LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_NO_SERVER]: "no_server",
  [LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_DELETED]: "deleted",
  [LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_FAILED]: "failed",
};

/** The `diagnostics` field a write tool's details gain in a run wired with lsp: the same findings as the text it appends. */
export const writeDiagnosticsDetails = z
  .strictObject({
    files: z
      .array(
        z.strictObject({
          path: z.string().describe("workspace-relative"),
          state: z
            .enum(FILE_STATES)
            .describe(
              "fresh: checked, its new diagnostics are listed; late: not checked in time (ask lsp diagnostics later); no_server: nothing checks it; failed: see detail",
            ),
          servers: z.array(z.string()).describe("the language servers that checked it"),
          detail: z.string().describe('why it is late or failed; "" otherwise'),
          new_count: z.number().int().describe("diagnostics new to the run in this file (fresh files), before the cap"),
          earlier_unknown: z.boolean().describe("its diagnostics before the change were not known in time, so some new ones may predate it"),
        }),
      )
      .describe("every file the write changed that was synced with the language servers"),
    new: z
      .array(
        z.strictObject({
          path: z.string().describe("workspace-relative"),
          line: z.number().int().describe("1-based"),
          column: z.number().int().describe("1-based"),
          severity: z.enum(["error", "warning"]).describe("information and hints are left out"),
          source: z.string().describe('the checker that reported it (the server\'s "source"), or ""'),
          code: z.string().describe('its rule or error code, or ""'),
          message: z.string(),
        }),
      )
      .describe(`the errors and warnings the write newly introduced, at most ${LIMITS.lspDiagnosticsCap} per file`),
    truncated: z.boolean().describe("a file had more new diagnostics than listed (see its new_count)"),
  })
  .describe("what the language servers found in the written files (runs wired with lsp)");

export type WriteDiagnostics = z.infer<typeof writeDiagnosticsDetails>;

/** The data beside describe()'s text: per file its state, and the new diagnostics each fresh file has. */
function diagnosticsData(files: readonly LspFileDiagnostics[], fresh: ReadonlyMap<string, LspDiagnostic[]>, unknownBefore: Set<string>): WriteDiagnostics {
  const out: WriteDiagnostics = { files: [], new: [], truncated: false };
  for (const f of files) {
    const found = fresh.get(f.path) ?? [];
    out.files.push({
      path: f.path,
      state: STATE_NAMES[f.state] ?? "failed",
      servers: f.servers,
      detail: f.detail,
      new_count: found.length,
      earlier_unknown: unknownBefore.has(f.path),
    });
    const shown = found.slice(0, LIMITS.lspDiagnosticsCap);
    if (shown.length < found.length) out.truncated = true;
    for (const d of shown) {
      out.new.push({
        path: d.path,
        line: d.line,
        column: d.column,
        severity: d.severity === "error" ? "error" : "warning",
        source: d.source,
        code: d.code,
        message: d.message,
      });
    }
  }
  return out;
}

/** Syncs the changed files: the diagnostics the change newly introduced, worded and as data. */
export async function checkAfter(
  paths: string[],
  ctx: ToolContext,
  ledger: DiagnosticsLedger,
  unknownBefore: Set<string> = new Set(),
): Promise<{ note: string; diagnostics: WriteDiagnostics }> {
  try {
    const { client } = await ctx.agent();
    const res = await client.lspSync({ paths, waitMs: diagnosticsWaitMs() });
    const fresh = new Map<string, LspDiagnostic[]>();
    const note = describe(res.files, ledger, ctx, unknownBefore, (path, found) => fresh.set(path, found));
    return { note, diagnostics: diagnosticsData(res.files, fresh, unknownBefore) };
  } catch (err) {
    const detail = (err as Error).message;
    const failed = paths.map((path) => ({
      path: normalized(path),
      state: "failed" as const,
      servers: [],
      detail,
      new_count: 0,
      earlier_unknown: unknownBefore.has(normalized(path)),
    }));
    return { note: `Diagnostics unavailable: ${detail}`, diagnostics: { files: failed, new: [], truncated: false } };
  }
}

/** Syncs the changed files and words the diagnostics the change newly introduced. */
export async function diagnosticsAfter(paths: string[], ctx: ToolContext, ledger: DiagnosticsLedger, unknownBefore: Set<string> = new Set()): Promise<string> {
  return (await checkAfter(paths, ctx, ledger, unknownBefore)).note;
}

/** The wrapped tool's details schema with the optional `diagnostics` field, so what ListTools publishes stays true. */
function withDiagnosticsSchema(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  const { $schema: _, ...field } = z.toJSONSchema(writeDiagnosticsDetails, { io: "output" }) as Record<string, unknown>;
  const base = schema ?? { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: {} };
  return { ...base, properties: { ...(base.properties as Record<string, unknown> | undefined), diagnostics: field } };
}

function withDiagnostics(tool: Tool, pathsOf: PathsOf, ledger: DiagnosticsLedger): Tool {
  return {
    ...tool,
    detailsSchema: withDiagnosticsSchema(tool.detailsSchema),
    async invoke(args: unknown, ctx: ToolContext): Promise<ToolOutput> {
      if (!ctx.run.resources.includes("lsp")) return tool.invoke(args, ctx);
      const planned = pathsOf(args as Record<string, unknown>, ctx).filter(Boolean);
      // Before the first change of a file in this run: what it has now is not the write's doing.
      const unknownBefore = planned.length ? await seedBefore(planned, ctx, ledger) : new Set<string>();
      const out = await tool.invoke(args, ctx);
      const paths = (out.writtenPaths ?? planned).filter(Boolean);
      if (paths.length === 0) return out;
      const { note, diagnostics } = await checkAfter(paths, ctx, ledger, unknownBefore);
      // Everything else the tool answered (its error, its details, what to audit) is kept.
      const details = { ...(isRecord(out.details) ? out.details : {}), diagnostics };
      return { ...out, parts: note ? [...out.parts, { type: "text", text: note }] : out.parts, details };
    },
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The tools, with write, edit, apply_patch and resolve wrapped; others unchanged. */
export function withDiagnosticsOnWrite(tools: readonly Tool[], ledger: DiagnosticsLedger): Tool[] {
  return tools.map((t) => {
    const pathsOf = WRITTEN_PATHS[t.name];
    return pathsOf ? withDiagnostics(t, pathsOf, ledger) : t;
  });
}
