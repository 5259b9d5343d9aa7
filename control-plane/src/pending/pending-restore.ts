// Staged changes across a restart: what a pending action keeps in the state database, and what it
// becomes when read back. A change that is data (ast_edit's contents and hashes) gets its apply back
// from the tool that staged it and resolves as before; a custom tool's is code that died with the
// process, so it comes back lost: resolve says so with `pending_action_lost`, naming it, and drops it.
import { EnclaveError } from "../errors.js";
import type { PendingAction, PendingJournal, PendingPersistence, PendingRun } from "./pending-action-store.js";
import type { PendingActionTable, RestorableChange, StoredPendingAction } from "./pending-action-table.js";

/** The apply of the change restored as action `id` of the run, or undefined when its data describes none (it is then lost). */
export type ReviveChange = (change: RestorableChange, run: PendingRun, id: string) => PendingAction["apply"] | undefined;

function storedOf(action: PendingAction): StoredPendingAction {
  return {
    id: action.id,
    label: action.label,
    sourceToolName: action.sourceToolName,
    createdAtMs: action.createdAtMs,
    ...(action.files ? { files: action.files } : {}),
    // A custom tool's details are its author's value, not necessarily data: only text is kept.
    ...(typeof action.details === "string" ? { details: action.details } : {}),
    ...(action.restorable && !action.lost ? { restorable: action.restorable } : {}),
  };
}

function journalTo(table: PendingActionTable, runId: string): PendingJournal {
  return {
    pushed: (action, seq) => table.keep(runId, seq, storedOf(action)),
    popped: (id) => table.drop(runId, id),
  };
}

/** The error resolve answers for a lost action; it names the action, the tool that staged it and its label. */
export function lostActionError(action: PendingAction): EnclaveError {
  return new EnclaveError(
    "pending_action_lost",
    `${action.id} (${action.sourceToolName}: ${action.label}) was lost: the control plane restarted after \`${action.sourceToolName}\` staged it, ` +
      `and a custom tool's staged change lives only in the process that staged it. Nothing was applied or cleaned up, and ${action.id} is dropped. ` +
      `Call \`${action.sourceToolName}\` again to stage the change anew.`,
  );
}

/** What a stored action keeps whatever becomes of it: its id, label, source and files. */
function storedFields(stored: StoredPendingAction): Omit<PendingAction, "apply"> {
  return {
    id: stored.id,
    label: stored.label,
    sourceToolName: stored.sourceToolName,
    createdAtMs: stored.createdAtMs,
    ...(stored.files ? { files: stored.files } : {}),
  };
}

function lostAction(stored: StoredPendingAction): PendingAction {
  const action: PendingAction = {
    ...storedFields(stored),
    lost: true,
    apply: () => {
      throw lostActionError(action);
    },
  };
  return action;
}

/** A run's stack as it was written before the restart, in push order. */
function restoredStack(table: PendingActionTable, revive: ReviveChange, run: PendingRun): { actions: PendingAction[]; lastSeq: number } {
  const rows = table.load(run.id);
  const actions = rows.map(({ action: stored }): PendingAction => {
    const apply = stored.restorable ? revive(stored.restorable, run, stored.id) : undefined;
    if (!apply) return lostAction(stored);
    return {
      ...storedFields(stored),
      ...(stored.details !== undefined ? { details: stored.details } : {}),
      ...(stored.restorable ? { restorable: stored.restorable } : {}),
      apply,
    };
  });
  return { actions, lastSeq: Math.max(table.lastSeq(run.id), ...rows.map((r) => r.seq)) };
}

/** Runs' stacks written through to the table and read back from it, restorable changes revived by `revive`. */
export function persistedIn(table: PendingActionTable, revive: ReviveChange): PendingPersistence {
  return {
    journal: (runId) => journalTo(table, runId),
    restore: (run) => restoredStack(table, revive, run),
    forget: (runId) => table.dropRun(runId),
  };
}
