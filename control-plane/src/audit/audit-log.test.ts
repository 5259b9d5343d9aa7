// The audit database's version-2 upgrade: a log written before tenants gains the tenant column, its
// conversations' events belonging to the implicit tenant and the server's own events to none, and
// queries by tenant read only that tenant's rows.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { AuditLog } from "./audit-log.js";

it("upgrades a version-1 log: old rows belong to `local` (server events to none), new rows carry their tenant", () => {
  const dir = mkdtempSync(join(tmpdir(), "enclave-audit-tenant-"));
  try {
    const file = join(dir, "audit.db");
    const old = new Database(file);
    old.exec(`CREATE TABLE audit_events (seq INTEGER PRIMARY KEY, time_ms INTEGER NOT NULL, conversation_id TEXT NOT NULL, kind TEXT NOT NULL, event_json TEXT NOT NULL, card_number INTEGER);
CREATE TABLE card_numbers (conversation_id TEXT PRIMARY KEY, last_number INTEGER NOT NULL);
PRAGMA user_version = 1;`);
    const insert = old.prepare("INSERT INTO audit_events VALUES (?, ?, ?, ?, ?, NULL)");
    insert.run(1, 1, "c-old", "tool_call", JSON.stringify({ seq: 1, timeMs: 1, conversationId: "c-old", kind: "tool_call", tool: "read" }));
    insert.run(2, 2, "", "audit_pruned", JSON.stringify({ seq: 2, timeMs: 2, conversationId: "", kind: "audit_pruned" }));
    old.close();

    const owners = new Map([["c-new", "acme"]]);
    const log = new AuditLog(file, { tenantOf: (id) => owners.get(id) });
    try {
      log.record({ kind: "tool_call", conversationId: "c-new", tool: "write" });
      log.record({ kind: "api_started", detail: "listening" });
      const all = log.history();
      expect(all.map((e) => [e.conversationId, e.tenant])).toEqual([
        ["c-old", "local"],
        ["", ""],
        ["c-new", "acme"],
        ["", ""],
      ]);
      expect(log.history({ tenant: "acme" }).map((e) => e.conversationId)).toEqual(["c-new"]);
      expect(log.history({ tenant: "local" }).map((e) => e.conversationId)).toEqual(["c-old"]);
      expect(log.page({ tenant: "acme", limit: 10 }).map((e) => e.tool)).toEqual(["write"]);
    } finally {
      log.close();
    }
    const reopened = new Database(file, { readonly: true });
    expect(reopened.pragma("user_version", { simple: true })).toBe(4);
    // Version 4: what each tenant's rows hold, seeded from the old rows and kept by the triggers since.
    const usage = reopened.prepare("SELECT tenant, bytes, events FROM audit_tenant_usage WHERE events > 0 ORDER BY tenant").all();
    const actual = reopened
      .prepare("SELECT tenant, SUM(LENGTH(CAST(event_json AS BLOB))) AS bytes, COUNT(*) AS events FROM audit_events GROUP BY tenant ORDER BY tenant")
      .all();
    expect(usage).toEqual(actual);
    reopened.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it("upgrades a version-2 log: another tenant's events and card counter are re-keyed `<tenant>.<id>`, the implicit tenant's kept", () => {
  const dir = mkdtempSync(join(tmpdir(), "enclave-audit-keys-"));
  try {
    const file = join(dir, "audit.db");
    const old = new Database(file);
    old.exec(`CREATE TABLE audit_events (seq INTEGER PRIMARY KEY, time_ms INTEGER NOT NULL, conversation_id TEXT NOT NULL, kind TEXT NOT NULL, event_json TEXT NOT NULL, card_number INTEGER, tenant TEXT NOT NULL DEFAULT '');
CREATE TABLE card_numbers (conversation_id TEXT PRIMARY KEY, last_number INTEGER NOT NULL);
PRAGMA user_version = 2;`);
    const insert = old.prepare("INSERT INTO audit_events VALUES (?, ?, ?, ?, ?, NULL, ?)");
    insert.run(1, 1, "x", "tool_call", JSON.stringify({ seq: 1, timeMs: 1, conversationId: "x", kind: "tool_call", tenant: "local" }), "local");
    insert.run(2, 2, "y", "tool_call", JSON.stringify({ seq: 2, timeMs: 2, conversationId: "y", kind: "tool_call", tenant: "acme" }), "acme");
    insert.run(3, 3, "", "api_started", JSON.stringify({ seq: 3, timeMs: 3, conversationId: "", kind: "api_started" }), "");
    old.prepare("INSERT INTO card_numbers VALUES (?, ?)").run("y", 7);
    old.close();

    const log = new AuditLog(file, {});
    try {
      expect(log.history().map((e) => [e.conversationId, e.tenant])).toEqual([
        ["x", "local"],
        ["acme.y", "acme"],
        ["", ""],
      ]);
      expect(log.history({ conversationId: "acme.y" })).toHaveLength(1);
      expect(log.nextCardNumber("acme.y")).toBe(8);
      expect(log.nextCardNumber("y")).toBe(1);
    } finally {
      log.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
