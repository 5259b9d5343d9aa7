// The run's pending state as every tool result carries it: the tool the run must call next and the
// staged changes awaiting it, most recent first. A harness reads it from the result it already has,
// instead of asking ListTools after every call.
import type { PendingActionStore } from "./pending-action-store.js";

export interface PendingState {
  /** "resolve" while something is pending, else "". */
  requiredNextTool: "resolve" | "";
  /** Most recent first: resolve without an edit_id takes the first. */
  pendingIds: string[];
  /** The same actions' labels, in the same order. */
  labels: string[];
}

export function pendingStateOf(store: PendingActionStore | undefined): PendingState {
  const actions = store?.list() ?? [];
  return { requiredNextTool: actions.length ? "resolve" : "", pendingIds: actions.map((a) => a.id), labels: actions.map((a) => a.label) };
}
