// The state database: numbered migrations applied once each, an old conversations.json imported
// once (and renamed only after its import committed), fields other parts add to records kept, and a
// database from a newer version refused rather than misread.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { ConversationStore } from "../conversations/conversation-store.js";
import { RunStore } from "../runs/run-store.js";
import { MIGRATIONS } from "./migrations.js";
import { STATE_DB_FILE, StateDb } from "./state-db.js";
import { thrown } from "@enclave/test-kit/transcript-log.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const fresh = () => mkdtempSync(join(tmpdir(), "enclave-state-"));

const legacy = [
  {
    id: "old-1",
    workspacePath: "/tmp/ws-1",
    ownsWorkspace: false,
    createdAtMs: 1000,
    enclosure: {
      containerId: "abc",
      image: "img",
      startedAtMs: 1,
      limits: { memoryBytes: 1, cpus: 1, pids: 1 },
      workspaceMode: "bind",
      relaxations: [],
      user: "1000:1000",
      state: "running",
      detail: "",
    },
  },
  { id: "old-2", workspacePath: "/tmp/ws-2", ownsWorkspace: true, createdAtMs: 2000 },
];

describe("the state database", () => {
  it("applies each migration once and imports conversations.json once", () => {
    const dir = fresh();
    writeFileSync(join(dir, "conversations.json"), JSON.stringify(legacy));
    const state = new StateDb(dir);
    expect(state.applied().map((m) => m.version)).toEqual(MIGRATIONS.map((m) => m.version));
    const store = new ConversationStore(dir, state);
    expect(store.list().map((c) => c.id)).toEqual(["old-1", "old-2"]);
    // Recorded before enclosures named their runtime: runc.
    expect(store.get("old-1").enclosure?.runtime).toBe("runc");
    expect(existsSync(join(dir, "conversations.json"))).toBe(false);
    expect(existsSync(join(dir, "conversations.json.imported"))).toBe(true);
    state.close();

    // A conversations.json put back later is not imported again: the migration ran.
    writeFileSync(join(dir, "conversations.json"), JSON.stringify([{ id: "late", workspacePath: "/tmp/late", ownsWorkspace: false, createdAtMs: 3 }]));
    const again = new ConversationStore(dir);
    expect(again.has("late")).toBe(false);
    expect(again.list()).toHaveLength(2);
    again.close();
  });

  it("keeps fields other parts add (a tenant, an enclosure's engine) and indexes the tenant", () => {
    const dir = fresh();
    const store = new ConversationStore(dir);
    const rec = { ...(legacy[0] as object), id: "t-1", tenant: "acme" } as unknown as Parameters<ConversationStore["put"]>[0];
    (rec.enclosure as unknown as { engine: string }).engine = "remote-1";
    store.put(rec);
    store.put({ id: "t-2", workspacePath: "/tmp/t2", ownsWorkspace: false, createdAtMs: 5, tenant: "local" });
    store.close();
    const back = new ConversationStore(dir).get("t-1") as unknown as { tenant: string; enclosure: { engine: string } };
    expect(back.tenant).toBe("acme");
    expect(back.enclosure.engine).toBe("remote-1");
    const db = new Database(join(dir, STATE_DB_FILE), { readonly: true });
    expect(db.prepare("SELECT id, tenant FROM conversations ORDER BY id").all()).toEqual([
      { id: "t-1", tenant: "acme" },
      { id: "t-2", tenant: "local" },
    ]);
    db.close();
  });

  it("keeps open runs across a reopen, with no calls in flight, and forgets closed ones", () => {
    const dir = fresh();
    const state = new StateDb(dir);
    const runs = new RunStore(state);
    const kept = runs.open({ conversationId: "c1", approvalPolicy: "never", resources: ["workspace"] });
    const closed = runs.open({ conversationId: "c1" });
    kept.callsInFlight = 2;
    runs.setVibeMode(kept.id, true);
    runs.close(closed.id);
    state.close();
    const reopened = new StateDb(dir);
    const back = new RunStore(reopened);
    expect(back.list().map((r) => r.id)).toEqual([kept.id]);
    expect(back.get(kept.id)).toMatchObject({ approvalPolicy: "never", resources: ["workspace"], vibeMode: true, callsInFlight: 0 });
    reopened.close();
  });

  it("leaves the database at the last migration that committed when one fails, and the legacy file in place", () => {
    const dir = fresh();
    writeFileSync(join(dir, "conversations.json"), "[{ cut off by a crash");
    expect(() => new StateDb(dir)).toThrow(expect.objectContaining({ code: "failed_precondition" }));
    expect(readFileSync(join(dir, "conversations.json"), "utf8")).toContain("cut off");
    const db = new Database(join(dir, STATE_DB_FILE), { readonly: true });
    expect((db.prepare("SELECT version FROM schema_migrations").all() as Array<{ version: number }>).map((r) => r.version)).toEqual([1]);
    db.close();
  });

  it("refuses a database a newer version wrote", async () => {
    const dir = fresh();
    new StateDb(dir).close();
    const db = new Database(join(dir, STATE_DB_FILE));
    db.prepare("INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (99, 'from the future', 0)").run();
    db.close();
    await expectTranscript(
      thrown(() => new StateDb(dir)),
      "transcripts/state-db/newer-version.txt",
    );
  });
});
