// diagnostics: one file's errors and warnings from its server; "*" runs the project's own checker.
import { LIMITS } from "../../../limits.js";
import { capNote, caveats, diagnosticLine, plural, reportable } from "../lsp-format.js";
import { z } from "zod";
import { LspQueryKind } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { DIAGNOSTIC_DETAILS, diagnosticDetails, LIST_BOUND } from "../lsp-details.js";
import { defineAction, lspQuery } from "./action.js";
import { clipMiddle } from "../../../text/wording.js";

const CHECKER_DETAILS = z.object({
  command: z.string().nullable().describe('the command line run ("tsc --noEmit -p ."…); null when no checker fits the project'),
  cwd: z.string().describe("the workspace-relative folder it ran in"),
  detail: z.string().describe("why no checker ran, when command is null"),
  exit_code: z.number().int().nullable().describe("its exit status; null when it did not run or timed out"),
  timed_out: z.boolean(),
  output: z.string().describe(`its output, clipped to head and tail at ${LIMITS.lspCheckerResultBytes} characters`),
  output_clipped: z.boolean(),
  output_truncated: z.boolean().describe("output beyond the agent's cap was dropped before it reached the control plane"),
});

export const DIAGNOSTICS_DETAILS = z.object({
  action: z.literal("diagnostics"),
  file: z.string().describe('the file asked about, or "*"'),
  server: z.string().nullable().describe('the language server that answered; null for "*"'),
  diagnostics: z.array(DIAGNOSTIC_DETAILS).describe(`errors and warnings, at most ${LIMITS.lspDiagnosticsCap}; empty for "*"`),
  ...LIST_BOUND,
  stale: z.boolean().describe("the server did not report fresh diagnostics in time: these may be stale"),
  indexing: z.boolean(),
  checker: CHECKER_DETAILS.nullable().describe('for "*": the project\'s checker and what it printed; null otherwise'),
});

export const diagnosticsAction = defineAction({
  name: "diagnostics",
  args: z.strictObject({
    action: z.literal("diagnostics"),
    file: z.string().min(1).describe('workspace-relative file, or "*" to run the project\'s own checker'),
  }),
  details: DIAGNOSTICS_DETAILS,
  needs: { file: 'a workspace-relative file, or "*" for the project\'s own checker' },
  async run(args, client, env) {
    if (args.file === "*") {
      const res = await client.lspRunChecker({ timeoutMs: LIMITS.lspCheckerTimeoutMs });
      const trimmed = res.output.trim();
      const out = clipMiddle(trimmed, LIMITS.lspCheckerResultBytes);
      const details = {
        action: "diagnostics" as const,
        file: "*",
        server: null,
        diagnostics: [],
        total: 0,
        truncated: false,
        stale: false,
        indexing: false,
        checker: {
          command: res.command || null,
          cwd: res.cwd,
          detail: res.detail,
          exit_code: res.command && !res.timedOut ? res.exitCode : null,
          timed_out: res.timedOut,
          output: out,
          output_clipped: out !== trimmed,
          output_truncated: res.outputTruncated,
        },
      };
      if (!res.command) return { text: `No project checker ran: ${res.detail}`, details };
      const status = res.timedOut ? `timed out after ${LIMITS.lspCheckerTimeoutMs / 1000} s and was killed` : `exit code ${res.exitCode}`;
      return {
        text: `\`${res.command}\` (the project's checker) — ${status}${res.exitCode === 0 && !res.timedOut ? ", no problems" : ""}:\n${out || "(no output)"}${res.outputTruncated ? "\n[output beyond the agent's cap was dropped]" : ""}`,
        details,
      };
    }
    const res = await lspQuery(client, LspQueryKind.LSP_QUERY_KIND_DIAGNOSTICS, { file: args.file });
    const found = res.diagnostics.filter(reportable);
    if (!res.stale) env.ledger.update(env.run, res.file, found);
    const stale = res.stale ? `\n(${res.server} did not report fresh diagnostics in time: these may be stale; ask again shortly)` : "";
    const shown = found.slice(0, LIMITS.lspDiagnosticsCap);
    const details = {
      action: "diagnostics" as const,
      file: args.file,
      server: res.server,
      diagnostics: shown.map(diagnosticDetails),
      total: found.length,
      truncated: found.length > shown.length,
      stale: res.stale,
      indexing: res.indexing,
      checker: null,
    };
    if (found.length === 0) return { text: `No errors or warnings in \`${args.file}\` (${res.server}).${stale}${caveats(res)}`, details };
    return {
      text: `${plural(found.length, "diagnostic")} in \`${args.file}\` (${res.server})${capNote(shown.length, found.length, LIMITS.lspDiagnosticsCap)}:\n${shown.map(diagnosticLine).join("\n")}${stale}${caveats(res)}`,
      details,
    };
  },
});
