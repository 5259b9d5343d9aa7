// Staged changes awaiting `resolve`, one stack per run (LIFO): a preview-producing tool pushes an
// action; resolve without an id takes the top one, so several previews resolve in reverse order.
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import type { CustomToolPendingAction, PendingActionStore as PendingActionStack } from "../tools/custom/custom-tool-types.js";
import type { RestorableChange } from "./pending-action-table.js";

/** Enclave's staging tools push what custom tools do, and may say how their change is rebuilt after a restart. */
export type PendingActionInput = CustomToolPendingAction & { restorable?: RestorableChange };

export interface PendingAction extends PendingActionInput {
  id: string;
  sourceToolName: string;
  createdAtMs: number;
  /** Restored after a restart without its apply and reject (a custom tool's, which are code): resolve reports it lost. */
  lost?: boolean;
}

/** Told of every push and pop, so the stack is written through to the state database. */
export interface PendingJournal {
  pushed(action: PendingAction, seq: number): void;
  popped(id: string): void;
}

/** A run as the stores need it: its conversation is where a restored change is applied. */
export interface PendingRun {
  id: string;
  resources: readonly string[];
  conversationId?: string;
  /** Whose runs share the bound on staged bytes; absent: one tally for all such runs. */
  tenant?: string;
}

/** Where runs' stacks are written through and read back from (see pending-restore.ts). */
export interface PendingPersistence {
  journal(runId: string): PendingJournal;
  /** The run's stack as it was written before a restart, in push order, and the last sequence number it gave. */
  restore(run: PendingRun): { actions: PendingAction[]; lastSeq: number };
  /** Forgets a closed run's actions. */
  forget(runId: string): void;
}

/** What an action keeps (in memory and in the state database), near enough: its texts, its file names and its restorable data as stored. */
function keptBytes(a: PendingActionInput): number {
  const texts = [a.label, typeof a.details === "string" ? a.details : "", ...(a.files ?? [])];
  return texts.reduce((n, t) => n + Buffer.byteLength(t), 0) + (a.restorable ? Buffer.byteLength(JSON.stringify(a.restorable.data) ?? "") : 0);
}

/** The bytes a tenant's runs keep staged between them (every store of the tenant's runs shares one). */
export interface StagedTally {
  bytes: number;
}

export class PendingActionStore implements PendingActionStack {
  private readonly stack: PendingAction[] = [];
  private readonly bytes = new Map<PendingAction, number>();
  private counter = 0;
  private released = false;

  /**
   * restored: the run's actions from before a restart, in push order, and the last sequence number (an id's) it gave.
   * tally: what the tenant's runs keep staged, this one's included.
   */
  constructor(
    private readonly journal?: PendingJournal,
    restored: { actions: PendingAction[]; lastSeq: number } = { actions: [], lastSeq: 0 },
    private readonly tally: StagedTally = { bytes: 0 },
  ) {
    this.stack.push(...restored.actions);
    for (const a of restored.actions) this.keep(a, keptBytes(a));
    this.counter = restored.lastSeq;
  }

  private keep(action: PendingAction, size: number): void {
    this.bytes.set(action, size);
    this.tally.bytes += size;
  }

  private forget(action: PendingAction): void {
    this.tally.bytes -= this.bytes.get(action) ?? 0;
    this.bytes.delete(action);
  }

  /** Gives the tenant's tally back what this run kept (the run closed). */
  release(): void {
    this.released = true;
    for (const a of [...this.bytes.keys()]) this.forget(a);
  }

  /**
   * Stages an action. A run holds at most LIMITS.pendingActionsPerRunMax of them and
   * LIMITS.pendingBytesPerRunMax bytes, a tenant's runs LIMITS.pendingBytesPerTenantMax between them:
   * past any the push is refused (failed_precondition), so staging without resolving (in one run or
   * in many) cannot fill the control plane's memory or its state database.
   */
  push(input: PendingActionInput): PendingAction {
    // A staging call still running when its run closed: what it pushed now would be held (and counted) for no run.
    if (this.released) throw new EnclaveError("failed_precondition", "the run closed while the change was being staged; nothing was staged");
    if (this.stack.length >= LIMITS.pendingActionsPerRunMax) {
      throw new EnclaveError(
        "failed_precondition",
        `the run holds ${this.stack.length} staged changes, the most one run may; call \`resolve\` (action "apply" or "discard") on some before staging more`,
      );
    }
    const size = keptBytes(input);
    const held = [...this.bytes.values()].reduce((n, b) => n + b, 0);
    if (held + size > LIMITS.pendingBytesPerRunMax) {
      throw new EnclaveError(
        "failed_precondition",
        `staging this change (${size} bytes) would take the run's staged changes past ${LIMITS.pendingBytesPerRunMax} bytes (${held} held); ` +
          `call \`resolve\` on some before staging more, or stage a smaller change (narrow its path)`,
      );
    }
    if (this.tally.bytes + size > LIMITS.pendingBytesPerTenantMax) {
      throw new EnclaveError(
        "failed_precondition",
        `staging this change (${size} bytes) would take the staged changes of the tenant's runs past ${LIMITS.pendingBytesPerTenantMax} bytes ` +
          `(${this.tally.bytes} held); resolve or close runs with staged changes before staging more`,
      );
    }
    const action: PendingAction = { ...input, id: `edit_${++this.counter}`, sourceToolName: input.sourceToolName ?? "custom_tool", createdAtMs: Date.now() };
    this.stack.push(action);
    this.keep(action, size);
    this.journal?.pushed(action, this.counter);
    return action;
  }

  /** The top (most recent) action. */
  peek(): PendingAction | undefined {
    return this.stack[this.stack.length - 1];
  }

  /** Removes and returns the top action, or the one with this id wherever it is. */
  pop(id?: string): PendingAction | undefined {
    const at = id === undefined ? this.stack.length - 1 : this.stack.findIndex((a) => a.id === id);
    if (at < 0) return undefined;
    const [action] = this.stack.splice(at, 1);
    if (action) {
      this.forget(action);
      this.journal?.popped(action.id);
    }
    return action;
  }

  /** A property, as the document names it (the stack is not empty). */
  get hasPending(): boolean {
    return this.stack.length > 0;
  }

  lookup(id: string): PendingAction | undefined {
    return this.stack.find((a) => a.id === id);
  }

  /** Top first. */
  list(): PendingAction[] {
    return [...this.stack].reverse();
  }
}

/** The stores of open runs. A run has one only when the ast resource (which brings resolve) is wired. */
export class PendingActionStores {
  private readonly stores = new Map<string, PendingActionStore>();
  private readonly tallies = new Map<string, StagedTally>();

  /** With persistence, each run's stack is written through to the state database and read back the first time the run asks for it. */
  constructor(private readonly persistence?: PendingPersistence) {}

  forRun(run: PendingRun): PendingActionStore | undefined {
    if (!run.resources.includes("ast")) return undefined;
    let s = this.stores.get(run.id);
    if (!s) {
      const p = this.persistence;
      const tenant = run.tenant ?? "";
      let tally = this.tallies.get(tenant);
      if (!tally) this.tallies.set(tenant, (tally = { bytes: 0 }));
      s = p ? new PendingActionStore(p.journal(run.id), p.restore(run), tally) : new PendingActionStore(undefined, undefined, tally);
      this.stores.set(run.id, s);
    }
    return s;
  }

  drop(runId: string): void {
    this.stores.get(runId)?.release();
    this.stores.delete(runId);
    this.persistence?.forget(runId);
  }
}
