// Audit export formats: JSON lines (the events as the API sends them) and CSV (RFC 4180, one row per
// event). Pure: the export route feeds events in pages.
import type { AuditEvent } from "../audit/audit-log.js";

export const CSV_COLUMNS = [
  "seq",
  "time",
  "conversation_id",
  "run_id",
  "kind",
  "tool",
  "tier",
  "origin",
  "outcome",
  "duration_ms",
  "placement",
  "arguments_digest",
  "detail",
  "kernel_id",
] as const;

/**
 * One CSV field: quoted when it holds a quote, comma or line break (quotes doubled). Text starting
 * with = + - @ or a tab is prefixed with ' so a spreadsheet does not run it as a formula; details
 * are written by agents.
 */
export function csvField(value: string | number): string {
  if (typeof value === "number") return String(value);
  const guarded = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(guarded) ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}

export function csvHeader(): string {
  return `${CSV_COLUMNS.join(",")}\r\n`;
}

export function csvRow(e: AuditEvent): string {
  const cells: (string | number)[] = [
    e.seq,
    new Date(e.timeMs).toISOString(),
    e.conversationId,
    e.runId,
    e.kind,
    e.tool,
    e.tier,
    e.origin,
    e.outcome,
    e.durationMs,
    e.placement,
    e.argumentsDigest,
    e.detail,
    e.kernelId,
  ];
  return `${cells.map(csvField).join(",")}\r\n`;
}

export function jsonLine(e: AuditEvent): string {
  return `${JSON.stringify(e)}\n`;
}

export type ExportFormat = "jsonl" | "csv";

export const EXPORT_TYPES: Record<ExportFormat, string> = {
  jsonl: "application/x-ndjson; charset=utf-8",
  csv: "text/csv; charset=utf-8",
};

/** A download name that says what and when: audit-<conversation>-<UTC time>.<ext>. */
export function exportFileName(conversationId: string, format: ExportFormat, now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return `audit-${conversationId}-${stamp}.${format}`;
}
