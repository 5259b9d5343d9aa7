// Staged changes awaiting `resolve`, one stack per run (LIFO): a preview-producing tool pushes an
// action; resolve without an id takes the top one, so several previews resolve in reverse order.
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
}

/** Where runs' stacks are written through and read back from (see pending-restore.ts). */
export interface PendingPersistence {
  journal(runId: string): PendingJournal;
  /** The run's stack as it was written before a restart, in push order, and the last sequence number it gave. */
  restore(run: PendingRun): { actions: PendingAction[]; lastSeq: number };
  /** Forgets a closed run's actions. */
  forget(runId: string): void;
}

export class PendingActionStore implements PendingActionStack {
  private readonly stack: PendingAction[] = [];
  private counter = 0;

  /** restored: the run's actions from before a restart, in push order, and the last sequence number (an id's) it gave. */
  constructor(
    private readonly journal?: PendingJournal,
    restored: { actions: PendingAction[]; lastSeq: number } = { actions: [], lastSeq: 0 },
  ) {
    this.stack.push(...restored.actions);
    this.counter = restored.lastSeq;
  }

  push(input: PendingActionInput): PendingAction {
    const action: PendingAction = { ...input, id: `edit_${++this.counter}`, sourceToolName: input.sourceToolName ?? "custom_tool", createdAtMs: Date.now() };
    this.stack.push(action);
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
    if (action) this.journal?.popped(action.id);
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

  /** With persistence, each run's stack is written through to the state database and read back the first time the run asks for it. */
  constructor(private readonly persistence?: PendingPersistence) {}

  forRun(run: PendingRun): PendingActionStore | undefined {
    if (!run.resources.includes("ast")) return undefined;
    let s = this.stores.get(run.id);
    if (!s) {
      const p = this.persistence;
      s = p ? new PendingActionStore(p.journal(run.id), p.restore(run)) : new PendingActionStore();
      this.stores.set(run.id, s);
    }
    return s;
  }

  drop(runId: string): void {
    this.stores.delete(runId);
    this.persistence?.forget(runId);
  }
}
