// The console's audit filter offers every kind the audit log can record: the kinds are one table
// (audit/audit-kinds.ts), and every kind the control plane's code records is in it.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AUDIT_KIND_NAMES } from "../audit/audit-kinds.js";
import { AUDIT_KINDS, parseAuditFilter } from "./audit-filter.js";
import { repoRoot } from "../repo-paths.js";

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : [],
  );
}

/** Kinds written as literals in an audit record: `kind: "x"` (or a `? "x" : "y"` choice) shortly after a record call or an AuditInput. */
function recordedKinds(): Set<string> {
  const kinds = new Set<string>();
  for (const file of sources(join(repoRoot, "control-plane", "src"))) {
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/kind: ([^,\n}]+)/g)) {
      const before = text.slice(Math.max(0, (m.index ?? 0) - 240), m.index);
      if (!/(\.record(Committed|Audit)?\(|\.refused\(|AuditInput)/.test(before)) continue;
      for (const lit of (m[1] ?? "").matchAll(/"([a-z_]+)"/g))
        if (!/=== "[a-z_]+"$/.test((m[1] ?? "").slice(0, (lit.index ?? 0) + lit[0].length))) kinds.add(lit[1] ?? "");
    }
  }
  return kinds;
}

describe("audit kinds", () => {
  it("the filter offers exactly the table's kinds", () => {
    expect([...AUDIT_KINDS].sort()).toEqual([...AUDIT_KIND_NAMES].sort());
  });

  it("every kind the code records is in the filter and parses as a filter", () => {
    const recorded = recordedKinds();
    // The scan finds the record calls (a scan that finds nothing would pass for nothing).
    for (const k of [
      "tool_call",
      "worker_started",
      "worker_settled",
      "call_refused",
      "quota_exceeded",
      "image_refused",
      "audit_pruned",
      "agent_bundle_refused",
      "stream_cut",
    ]) {
      expect(recorded, k).toContain(k);
    }
    for (const k of recorded) {
      expect(AUDIT_KINDS, k).toContain(k);
      expect(parseAuditFilter(new URLSearchParams({ kind: k })).ok, k).toBe(true);
    }
  });
});
