// The control plane's state database (state.db in the data folder): conversations with their
// enclosure records, and the runs that outlive a restart. It is its own file, not the audit
// database: the audit log is pruned by retention and handed to a security team as a whole, while
// this file is the control plane's working state; neither's upkeep (vacuum, export, restore from
// a backup) should touch the other. Card numbers stay in the audit database, taken in the same
// statement that keeps them monotonic there.
// WAL with synchronous=FULL: every write is one transaction, and a committed one survives a crash
// of the process or of the machine.
import { mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { EnclaveError } from "../errors.js";
import { type Migration, MIGRATIONS } from "./migrations.js";

export const STATE_DB_FILE = "state.db";

export interface AppliedMigration {
  version: number;
  name: string;
  appliedAtMs: number;
}

export class StateDb {
  readonly db: Database.Database;

  constructor(
    readonly dataDir: string,
    migrations: readonly Migration[] = MIGRATIONS,
  ) {
    mkdirSync(dataDir, { recursive: true });
    const file = join(dataDir, STATE_DB_FILE);
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = FULL");
    // Another process holding a write (a second control plane on the same folder) waits a moment, not fails at once.
    this.db.pragma("busy_timeout = 5000");
    try {
      this.migrate(migrations);
    } catch (err) {
      this.db.close();
      throw new EnclaveError("failed_precondition", `cannot bring the state database ${file} up to date: ${(err as Error).message}`);
    }
  }

  private migrate(migrations: readonly Migration[]): void {
    this.db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at_ms INTEGER NOT NULL)");
    const done = new Set(this.applied().map((m) => m.version));
    const newest = Math.max(0, ...done);
    const known = Math.max(0, ...migrations.map((m) => m.version));
    if (newest > known) {
      throw new Error(`it was written by a newer version (schema ${newest}; this one knows up to ${known}); run that version or a newer one`);
    }
    const record = this.db.prepare("INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, ?, ?)");
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(m.version)) continue;
      const imported: string[] = [];
      this.db
        .transaction(() => {
          m.up(this.db, { dataDir: this.dataDir, imported });
          record.run(m.version, m.name, Date.now());
        })
        .immediate();
      // Renamed only after the commit: a crash before this leaves the file, never imports it twice.
      for (const f of imported) renameSync(f, `${f}.imported`);
    }
  }

  applied(): AppliedMigration[] {
    return (
      this.db.prepare("SELECT version, name, applied_at_ms FROM schema_migrations ORDER BY version").all() as Array<{
        version: number;
        name: string;
        applied_at_ms: number;
      }>
    ).map((r) => ({ version: r.version, name: r.name, appliedAtMs: r.applied_at_ms }));
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
