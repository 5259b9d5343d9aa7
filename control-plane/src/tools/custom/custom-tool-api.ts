// The `pi` a custom tool factory receives (see custom-tool-types.ts for the form authors write):
// the real TypeBox, and pushPendingAction. pushPendingAction reaches the store of the run whose call
// is running (through AsyncLocalStorage), so one factory serves every run; outside a call, or in a
// run without a store, it throws the text the README quotes.
import { AsyncLocalStorage } from "node:async_hooks";
import * as typebox from "@sinclair/typebox";
import type { PendingActionStore } from "../../pending/pending-action-store.js";
import type { CustomToolAPI, CustomToolPendingAction } from "./custom-tool-types.js";

export const NO_STORE_MESSAGE = "Pending action store unavailable for custom tools in this runtime.";

const activeStore = new AsyncLocalStorage<PendingActionStore | undefined>();

/** Runs a custom tool's handler with its run's store (if any) as the active one. */
export function withPendingStore<T>(store: PendingActionStore | undefined, fn: () => T): T {
  return activeStore.run(store, fn);
}

/** Author code is checked here, where a mistake can still be reported to the tool that made it. */
function checkAction(action: CustomToolPendingAction): void {
  const a = action as unknown as Record<string, unknown> | null;
  if (typeof a !== "object" || a === null) throw new TypeError("pushPendingAction needs { label, apply(reason), reject?(reason) }");
  if (typeof a.label !== "string" || !a.label.trim()) throw new TypeError("pushPendingAction: `label` must be a non-empty string");
  if (typeof a.apply !== "function") throw new TypeError("pushPendingAction: `apply(reason)` must be a function");
  if (a.reject !== undefined && typeof a.reject !== "function") throw new TypeError("pushPendingAction: `reject`, when given, must be a function");
  if (a.sourceToolName !== undefined && typeof a.sourceToolName !== "string")
    throw new TypeError("pushPendingAction: `sourceToolName`, when given, must be a string");
  if (a.files !== undefined && !(Array.isArray(a.files) && a.files.every((f) => typeof f === "string")))
    throw new TypeError("pushPendingAction: `files`, when given, must be an array of workspace-relative paths");
}

/** The API handed to factories; `storeOf` finds the active store (tests may pass their own). */
export function createCustomToolApi(storeOf: () => PendingActionStore | undefined = () => activeStore.getStore()): CustomToolAPI {
  return {
    typebox,
    pushPendingAction(action) {
      const store = storeOf();
      if (!store) throw new Error(NO_STORE_MESSAGE);
      checkAction(action);
      const { label, apply, reject, details, sourceToolName, files } = action;
      return store.push({
        label,
        apply,
        ...(reject ? { reject } : {}),
        details,
        sourceToolName: sourceToolName ?? "custom_tool",
        ...(files ? { files: [...files] } : {}),
      }).id;
    },
  };
}
