// diagnostics: one file's errors and warnings from its server; "*" runs the project's own checker.
import { LIMITS } from "../../../limits.js";
import { capNote, caveats, diagnosticLine, plural, reportable } from "../lsp-format.js";
import { z } from "zod";
import { LspQueryKind } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { defineAction, lspQuery } from "./action.js";
import { clipMiddle } from "../../../text/wording.js";

export const diagnosticsAction = defineAction({
  name: "diagnostics",
  args: z.strictObject({
    action: z.literal("diagnostics"),
    file: z.string().min(1).describe('workspace-relative file, or "*" to run the project\'s own checker'),
  }),
  needs: { file: 'a workspace-relative file, or "*" for the project\'s own checker' },
  async run(args, client, env) {
    if (args.file === "*") {
      const res = await client.lspRunChecker({ timeoutMs: LIMITS.lspCheckerTimeoutMs });
      if (!res.command) return `No project checker ran: ${res.detail}`;
      const status = res.timedOut ? `timed out after ${LIMITS.lspCheckerTimeoutMs / 1000} s and was killed` : `exit code ${res.exitCode}`;
      const out = clipMiddle(res.output.trim(), LIMITS.lspCheckerResultBytes);
      return `\`${res.command}\` (the project's checker) — ${status}${res.exitCode === 0 && !res.timedOut ? ", no problems" : ""}:\n${out || "(no output)"}${res.outputTruncated ? "\n[output beyond the agent's cap was dropped]" : ""}`;
    }
    const res = await lspQuery(client, LspQueryKind.LSP_QUERY_KIND_DIAGNOSTICS, { file: args.file });
    const found = res.diagnostics.filter(reportable);
    if (!res.stale) env.ledger.update(env.run, res.file, found);
    const stale = res.stale ? `\n(${res.server} did not report fresh diagnostics in time: these may be stale; ask again shortly)` : "";
    if (found.length === 0) return `No errors or warnings in \`${args.file}\` (${res.server}).${stale}${caveats(res)}`;
    const shown = found.slice(0, LIMITS.lspDiagnosticsCap);
    return `${plural(found.length, "diagnostic")} in \`${args.file}\` (${res.server})${capNote(shown.length, found.length, LIMITS.lspDiagnosticsCap)}:\n${shown.map(diagnosticLine).join("\n")}${stale}${caveats(res)}`;
  },
});
