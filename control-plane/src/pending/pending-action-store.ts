// Staged changes awaiting `resolve`, one stack per run (LIFO): a preview-producing tool pushes an
// action; resolve without an id takes the top one, so several previews resolve in reverse order.
import type { CustomToolPendingAction, PendingActionStore as PendingActionStack } from "../tools/custom/custom-tool-types.js";

/** Enclave's staging tools push what custom tools do. */
export type PendingActionInput = CustomToolPendingAction;

export interface PendingAction extends PendingActionInput {
  id: string;
  sourceToolName: string;
  createdAtMs: number;
}

export class PendingActionStore implements PendingActionStack {
  private readonly stack: PendingAction[] = [];
  private counter = 0;

  push(input: PendingActionInput): PendingAction {
    const action: PendingAction = { ...input, id: `edit_${++this.counter}`, sourceToolName: input.sourceToolName ?? "custom_tool", createdAtMs: Date.now() };
    this.stack.push(action);
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
    return this.stack.splice(at, 1)[0];
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

  forRun(run: { id: string; resources: readonly string[] }): PendingActionStore | undefined {
    if (!run.resources.includes("ast")) return undefined;
    let s = this.stores.get(run.id);
    if (!s) {
      s = new PendingActionStore();
      this.stores.set(run.id, s);
    }
    return s;
  }

  drop(runId: string): void {
    this.stores.delete(runId);
  }
}
