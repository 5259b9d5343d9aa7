// Runs: one agent run of a conversation, with its surface (which tiers it sees), the resources wired
// for it (which tools exist at all) and its approval policy.
// A run that names no approval policy gets `write`, the tier default: write and exec tools raise a
// permission card first. Headless harnesses, with nobody to answer, say `never` explicitly.
import { randomBytes } from "node:crypto";
import type Database from "better-sqlite3";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import {
  APPROVAL_POLICIES,
  type ApprovalPolicy,
  DEFAULT_APPROVAL_POLICY,
  type OpenRunRequest,
  RESOURCES,
  type Run,
  SURFACES,
  type Surface,
} from "../model/run.js";
import type { StateDb } from "../state/state-db.js";
import { IMPLICIT_TENANT, tenantOf } from "../tenants/implicit-tenant.js";
import { quoted } from "../text/wording.js";

/** The answer for a run id that is not open, and for another tenant's: one error, indistinguishable. */
export function noRun(id: string): EnclaveError {
  return new EnclaveError("not_found", `no open run \`${id}\`; open one with OpenRun`);
}

function oneOf<T extends string>(what: string, value: string, allowed: readonly T[]): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new EnclaveError("invalid_arguments", `${what} ${quoted(value)} is not one of ${allowed.join(", ")}`);
}

function questionTimeoutMs(seconds: number): number {
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > LIMITS.questionMaxTimeoutSeconds) {
    throw new EnclaveError("invalid_arguments", `question_timeout_seconds ${seconds} is not a whole number from 0 to ${LIMITS.questionMaxTimeoutSeconds}`);
  }
  return seconds * 1000;
}

/** The surface asked for, or `default`. */
export function surfaceOf(asked: string | undefined): Surface {
  return oneOf("surface", asked || "default", SURFACES);
}

/** The policy asked for, or the tier default when none is. */
export function approvalPolicy(asked: string | undefined): ApprovalPolicy {
  return oneOf("approval_policy", asked || DEFAULT_APPROVAL_POLICY, APPROVAL_POLICIES);
}

/** Where open runs are written so they outlive a restart; without one (tests of the store alone) they live in memory. */
class RunTable {
  private readonly upsert: Database.Statement<[string, string, string, number, string]>;
  private readonly remove: Database.Statement<[string]>;

  constructor(private readonly state: StateDb) {
    this.upsert = state.db.prepare(
      "INSERT INTO runs (id, tenant, conversation_id, opened_at_ms, record_json) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET tenant = excluded.tenant, record_json = excluded.record_json",
    );
    this.remove = state.db.prepare("DELETE FROM runs WHERE id = ?");
  }

  load(): Run[] {
    const rows = this.state.db.prepare("SELECT record_json FROM runs ORDER BY opened_at_ms, id").all() as Array<{ record_json: string }>;
    // Calls in flight did not survive the restart that reloads these.
    return rows.map((r) => ({ ...(JSON.parse(r.record_json) as Run), callsInFlight: 0 }));
  }

  write(run: Run): void {
    if (!this.state.db.open) return;
    const { callsInFlight: _inFlight, ...kept } = run;
    this.upsert.run(run.id, tenantOf(run), run.conversationId, run.openedAtMs, JSON.stringify(kept));
  }

  delete(id: string): void {
    if (this.state.db.open) this.remove.run(id);
  }
}

export class RunStore {
  private readonly runs = new Map<string, Run>();
  /** Each conversation's open runs by id: a conversation's view (every list page's entries) asks for them without a pass over every run. */
  private readonly byConversation = new Map<string, Map<string, Run>>();
  private readonly table: RunTable | undefined;

  /** With a state database, open runs are written there and read back at start. */
  constructor(state?: StateDb) {
    this.table = state ? new RunTable(state) : undefined;
    for (const run of this.table?.load() ?? []) this.add(run);
  }

  private add(run: Run): void {
    this.runs.set(run.id, run);
    const of = this.byConversation.get(run.conversationId) ?? new Map<string, Run>();
    of.set(run.id, run);
    this.byConversation.set(run.conversationId, of);
  }

  open(req: OpenRunRequest): Run {
    const resources = (req.resources?.length ? req.resources : [...RESOURCES]).map((r) => oneOf("resource", r, RESOURCES));
    const run: Run = {
      id: `r-${randomBytes(6).toString("hex")}`,
      conversationId: req.conversationId,
      surface: surfaceOf(req.surface),
      resources: [...new Set(resources)],
      approvalPolicy: approvalPolicy(req.approvalPolicy),
      openedAtMs: Date.now(),
      targetSpace: req.targetSpace || req.conversationId,
      vibeMode: req.vibeMode ?? false,
      questionTimeoutMs: questionTimeoutMs(req.questionTimeoutSeconds ?? 0),
      cli: false,
      lastUsedMs: 0,
      callsInFlight: 0,
      tenant: req.tenant || IMPLICIT_TENANT,
      strictResolve: req.strictResolve ?? false,
    };
    this.table?.write(run);
    this.add(run);
    return run;
  }

  /** Writes a run changed in place (its policy, vibe mode, CLI flag or last use) through to the database. */
  save(run: Run): void {
    if (this.runs.get(run.id) === run) this.table?.write(run);
  }

  get(id: string): Run {
    const run = this.runs.get(id);
    if (!run) throw noRun(id);
    return run;
  }

  has(id: string): boolean {
    return this.runs.has(id);
  }

  close(id: string): void {
    this.table?.delete(id);
    const run = this.runs.get(id);
    this.runs.delete(id);
    const of = run && this.byConversation.get(run.conversationId);
    of?.delete(id);
    if (run && of?.size === 0) this.byConversation.delete(run.conversationId);
  }

  /** Every open run, or one conversation's. */
  list(conversationId?: string): Run[] {
    return conversationId === undefined ? [...this.runs.values()] : this.forConversation(conversationId);
  }

  setVibeMode(id: string, enabled: boolean): Run {
    const run = this.get(id);
    run.vibeMode = enabled;
    this.save(run);
    return run;
  }

  forConversation(conversationId: string): Run[] {
    return [...(this.byConversation.get(conversationId)?.values() ?? [])];
  }

  closeConversation(conversationId: string): void {
    for (const r of this.forConversation(conversationId)) this.close(r.id);
  }
}
