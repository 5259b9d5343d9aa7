// GET /conversations/ID/audit.jsonl|csv: every matching event, oldest first, streamed in chunks.
import type { ControlPlaneApi } from "../../control-plane-api.js";
import { EnclaveError } from "../../errors.js";
import { type AuditFilter, matchesAuditFilter, parseAuditFilter } from "../audit-filter.js";
import { csvHeader, csvRow, EXPORT_TYPES, type ExportFormat, exportFileName, jsonLine } from "../audit-export.js";
import { SCAN_CHUNK } from "./audit-page.js";
import { type Reply, requireConversation, type Route, type RouteContext } from "./route.js";

/** Writes the events chunk by chunk, waiting for the socket to drain. */
async function streamExport(cp: ControlPlaneApi, ctx: RouteContext, id: string, filter: AuditFilter, format: ExportFormat): Promise<void> {
  const { res } = ctx;
  res.writeHead(200, {
    "Content-Type": EXPORT_TYPES[format],
    "Content-Disposition": `attachment; filename="${exportFileName(id, format)}"`,
    "Cache-Control": "no-store",
  });
  const write = (s: string): Promise<void> => (res.write(s) ? Promise.resolve() : new Promise((r) => res.once("drain", () => r())));
  if (format === "csv") await write(csvHeader());
  let after = 0;
  for (;;) {
    if (res.destroyed) return;
    const chunk = cp.auditPage({ conversationId: id, afterSeq: after, limit: SCAN_CHUNK });
    const text = chunk
      .filter((e) => matchesAuditFilter(e, filter))
      .map(format === "csv" ? csvRow : jsonLine)
      .join("");
    if (text) await write(text);
    if (chunk.length < SCAN_CHUNK) break;
    after = chunk[chunk.length - 1]?.seq ?? after;
  }
  res.end();
}

export function auditDownload(cp: ControlPlaneApi): Route {
  return {
    method: "GET",
    pattern: /^\/conversations\/([^/]+)\/audit\.(jsonl|csv)$/,
    handle: async (ctx): Promise<Reply> => {
      const id = requireConversation(cp, ctx);
      const parsed = parseAuditFilter(ctx.url.searchParams);
      if (!parsed.ok) throw new EnclaveError("invalid_arguments", parsed.error);
      await streamExport(cp, ctx, id, parsed.filter, ctx.params[1] as ExportFormat);
      return "streamed";
    },
  };
}
