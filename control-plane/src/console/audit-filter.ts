// Filters of the console's audit view (kind, tool, origin, outcome), parsed from a query string and
// matched against events. Pure: the page, the live push and the export share this one rule set.
import { AUDIT_KIND_NAMES } from "../audit/audit-kinds.js";
import type { AuditEvent } from "../audit/audit-log.js";

/** The kinds the audit log records: its one table, so a new kind is offered here too. */
export const AUDIT_KINDS: readonly string[] = AUDIT_KIND_NAMES;

export const AUDIT_ORIGINS = ["model", "bridge"] as const;

/** Outcome classes offered in the view; an exact outcome ("error:timeout") also works. */
export const AUDIT_OUTCOMES = ["ok", "error", "refused", "answered", "skipped", "timed_out", "cancelled", "done", "failed", "killed", "cut"] as const;

export interface AuditFilter {
  kind: string;
  tool: string;
  origin: string;
  outcome: string;
}

export const NO_FILTER: AuditFilter = { kind: "", tool: "", origin: "", outcome: "" };

export type ParsedFilter = { ok: true; filter: AuditFilter } | { ok: false; error: string };

const TOOL_RE = /^[A-Za-z0-9_.-]{1,200}$/;
const OUTCOME_RE = /^[a-z_]{1,40}(:[a-z_]{1,40})?$/;

/** Reads the filter fields; an empty field means "any". A value that cannot match anything is an error. */
export function parseAuditFilter(params: URLSearchParams): ParsedFilter {
  const get = (name: string): string => (params.get(name) ?? "").trim();
  const filter: AuditFilter = { kind: get("kind"), tool: get("tool"), origin: get("origin"), outcome: get("outcome") };
  if (filter.kind && !AUDIT_KINDS.includes(filter.kind)) {
    return { ok: false, error: `kind \`${filter.kind}\` is not one of ${AUDIT_KINDS.join(", ")}` };
  }
  if (filter.origin && !(AUDIT_ORIGINS as readonly string[]).includes(filter.origin)) {
    return { ok: false, error: `origin \`${filter.origin}\` is not one of ${AUDIT_ORIGINS.join(", ")}` };
  }
  if (filter.tool && !TOOL_RE.test(filter.tool)) return { ok: false, error: `tool \`${filter.tool}\` is not a tool name (letters, digits, _ . -)` };
  if (filter.outcome && !OUTCOME_RE.test(filter.outcome)) {
    return { ok: false, error: `outcome \`${filter.outcome}\` is not an outcome: one of ${AUDIT_OUTCOMES.join(", ")}, or an exact one like error:timeout` };
  }
  return { ok: true, filter };
}

/** "error" matches "error:timeout"; "error:timeout" matches only itself. */
function outcomeMatches(outcome: string, wanted: string): boolean {
  return outcome === wanted || outcome.startsWith(`${wanted}:`);
}

export function matchesAuditFilter(e: AuditEvent, f: AuditFilter): boolean {
  if (f.kind && e.kind !== f.kind) return false;
  if (f.tool && e.tool !== f.tool) return false;
  if (f.origin && e.origin !== f.origin) return false;
  if (f.outcome && !outcomeMatches(e.outcome, f.outcome)) return false;
  return true;
}

export function isFiltered(f: AuditFilter): boolean {
  return Boolean(f.kind || f.tool || f.origin || f.outcome);
}

/** The filter as query parameters (empty fields left out), for links that keep it. */
export function filterQuery(f: AuditFilter): URLSearchParams {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v) q.set(k, v);
  return q;
}
