// Where staged changes are written so they outlive a restart (the state database's pending_actions
// table): one row per pending action, in push order. A row holds what resolve needs to carry the
// change out again, when the change is data (ast_edit's files, contents and hashes); a custom tool's
// action is code, so its row keeps only what names it, and it comes back as lost.
import type Database from "better-sqlite3";
import type { StateDb } from "../state/state-db.js";

/** How a staging tool's change is rebuilt after a restart: its kind names the tool that knows how, data is that tool's own. */
export interface RestorableChange {
  kind: string;
  data: unknown;
}

export interface StoredPendingAction {
  id: string;
  label: string;
  sourceToolName: string;
  createdAtMs: number;
  files?: string[];
  details?: string;
  /** Absent for an action whose apply and reject are code (a custom tool's): it cannot be carried out after a restart. */
  restorable?: RestorableChange;
}

export class PendingActionTable {
  private readonly insert: Database.Statement<[string, string, number, string]>;
  private readonly remove: Database.Statement<[string, string]>;
  private readonly removeRun: Database.Statement<[string]>;
  private readonly select: Database.Statement<[string]>;
  private readonly raiseSeq: Database.Statement<[string, number]>;
  private readonly selectSeq: Database.Statement<[string]>;
  private readonly removeSeq: Database.Statement<[string]>;

  constructor(private readonly state: StateDb) {
    this.insert = state.db.prepare("INSERT OR REPLACE INTO pending_actions (run_id, id, seq, record_json) VALUES (?, ?, ?, ?)");
    this.remove = state.db.prepare("DELETE FROM pending_actions WHERE run_id = ? AND id = ?");
    this.removeRun = state.db.prepare("DELETE FROM pending_actions WHERE run_id = ?");
    this.select = state.db.prepare("SELECT seq, record_json FROM pending_actions WHERE run_id = ? ORDER BY seq");
    this.raiseSeq = state.db.prepare(
      "INSERT INTO pending_action_seqs (run_id, last_seq) VALUES (?, ?) ON CONFLICT (run_id) DO UPDATE SET last_seq = max(last_seq, excluded.last_seq)",
    );
    this.selectSeq = state.db.prepare("SELECT last_seq FROM pending_action_seqs WHERE run_id = ?");
    this.removeSeq = state.db.prepare("DELETE FROM pending_action_seqs WHERE run_id = ?");
  }

  /** The highest sequence number the run ever gave (0 before any). */
  lastSeq(runId: string): number {
    if (!this.state.db.open) return 0;
    return (this.selectSeq.get(runId) as { last_seq: number } | undefined)?.last_seq ?? 0;
  }

  /** A run's actions in push order, each with its sequence number. */
  load(runId: string): Array<{ seq: number; action: StoredPendingAction }> {
    if (!this.state.db.open) return [];
    const rows = this.select.all(runId) as Array<{ seq: number; record_json: string }>;
    return rows.map((r) => ({ seq: r.seq, action: JSON.parse(r.record_json) as StoredPendingAction }));
  }

  keep(runId: string, seq: number, action: StoredPendingAction): void {
    if (!this.state.db.open) return;
    this.state.db.transaction(() => {
      this.insert.run(runId, action.id, seq, JSON.stringify(action));
      this.raiseSeq.run(runId, seq);
    })();
  }

  drop(runId: string, id: string): void {
    if (this.state.db.open) this.remove.run(runId, id);
  }

  dropRun(runId: string): void {
    if (!this.state.db.open) return;
    this.removeRun.run(runId);
    this.removeSeq.run(runId);
  }

  /** Forgets the actions of every run not in the list (runs closed while the control plane was down, or cut short). */
  keepOnly(runIds: readonly string[]): void {
    if (!this.state.db.open) return;
    const open = new Set(runIds);
    const stale = (
      this.state.db.prepare("SELECT run_id FROM pending_action_seqs UNION SELECT run_id FROM pending_actions").all() as Array<{ run_id: string }>
    ).filter((r) => !open.has(r.run_id));
    for (const r of stale) this.dropRun(r.run_id);
  }
}
