// resolve (tier write): applies or discards a pending action: the one named by edit_id, or the most
// recent (LIFO). Hidden from ListTools while nothing is pending. Applied, its result is headed by
// `Applied: <label>`, followed by what apply returned. Discarded, it is the label, then what reject
// returned, which replaces the default message "Discarded" (kept when there is no reject, or it returns undefined).
import { z } from "zod";
import { asEnclaveError, EnclaveError } from "../../errors.js";
import { resultParts } from "../custom/agent-tool-result.js";
import type { PendingAction, PendingActionStore } from "../../pending/pending-action-store.js";
import { lostActionError } from "../../pending/pending-restore.js";
import { defineTool, type ContentPart } from "../tool.js";

export const NO_PENDING_ACTION = "No pending action to resolve. Nothing to apply or discard.";
/** What a discard says when the action has no reject, or its reject returns nothing. */
export const DISCARDED = "Discarded";

export const resolveTool = defineTool({
  name: "resolve",
  tier: "write",
  resource: "ast",
  description:
    "Apply or discard a staged change (from ast_edit or a custom tool). Without edit_id, the most recent one is resolved first (a stack). " +
    "`apply` (or `accept`) carries it out; `discard` drops it. `reason` is recorded.",
  args: z.strictObject({
    edit_id: z.string().optional().describe('the id a staging tool gave, e.g. "edit_1" (default: the most recent)'),
    action: z.enum(["apply", "accept", "discard"]),
    reason: z.string().optional().describe('why (informational; passed to the action as given, "" when absent)'),
  }),
  details: z.strictObject({
    outcome: z.enum(["applied", "discarded"]),
    edit_id: z.string().describe("the staged change resolved"),
    label: z.string().describe("what the staged change was, as its tool labelled it"),
    source_tool: z.string().describe("the tool that staged it"),
    files: z.array(z.string()).describe("workspace-relative files the change names: written when applied, left alone when discarded"),
    still_pending: z.array(z.string()).describe("ids of the changes still staged, most recent first (resolve without edit_id takes the first)"),
  }),
  async run(args, ctx) {
    const store = ctx.pending;
    if (!store || !store.hasPending) throw new EnclaveError("failed_precondition", NO_PENDING_ACTION);
    const action = args.edit_id === undefined ? store.peek() : store.lookup(args.edit_id);
    if (!action) {
      const pending = store.list().map((a) => `${a.id} (${a.label})`);
      throw new EnclaveError("not_found", `no pending action \`${args.edit_id}\`; pending, most recent first: ${pending.join(", ")}`);
    }
    ctx.emit({ kind: "progress", text: `${args.action === "discard" ? "discarding" : "applying"} ${action.id}: ${action.label}` });
    // Staged by a custom tool before a restart: its apply and reject died with that process.
    if (action.lost) {
      store.pop(action.id);
      throw lostActionError(action);
    }
    const reason = args.reason ?? "";
    const who = (fn: string): string => `${fn}() of the pending action ${action.id} (${action.sourceToolName})`;
    if (args.action === "discard") {
      store.pop(action.id);
      const rejected = action.reject ? await action.reject(reason) : undefined;
      const message = rejected === undefined ? [{ type: "text" as const, text: DISCARDED }] : resultParts(rejected, who("reject"));
      return { parts: [{ type: "text", text: action.label }, ...message], details: resolved("discarded", action, store) };
    }
    try {
      const applied = await action.apply(reason);
      store.pop(action.id);
      return {
        parts: [heading("Applied", action.label), ...resultParts(applied, who("apply"))],
        details: resolved("applied", action, store),
        writtenPaths: action.files,
      };
    } catch (thrown) {
      const err = asEnclaveError(thrown);
      // A refused change can never apply as staged: drop it. Anything else (an agent that went away)
      // may pass on a second try, so the action stays pending.
      if (err.code === "failed_precondition" || err.code === "failed") {
        store.pop(action.id);
        throw new EnclaveError(err.code, `${err.message} (${action.id} is dropped)`);
      }
      throw new EnclaveError(err.code, `${err.message} (${action.id} is still pending: resolve it again, or discard it)`);
    }
  },
});

function heading(verb: "Applied", label: string): ContentPart {
  return { type: "text", text: `${verb}: ${label}` };
}

/** resolve's details, once the action has left the store. */
function resolved(outcome: "applied" | "discarded", action: PendingAction, store: PendingActionStore) {
  return {
    outcome,
    edit_id: action.id,
    label: action.label,
    source_tool: action.sourceToolName,
    files: action.files ?? [],
    still_pending: store.list().map((a) => a.id),
  };
}
