// The API custom-tool authors program against. A custom tool module's default export is a factory:
//
//   export default (api) => ({
//     name: "drop_table", tier: "write", description: "...",
//     args: api.z.strictObject({ table: api.z.string() }),
//     async run(args, ctx) {
//       const id = api.pushPendingAction({ label: `drop ${args.table}`, apply: () => ..., reject: () => ... });
//       return `(proposed) drop ${args.table} … call resolve with edit_id "${id}"`;
//     },
//   });
//
// pushPendingAction reaches the store of the run whose call is running (through AsyncLocalStorage),
// so one factory serves every run. Outside a call, or in a run without a store, it throws.
import { AsyncLocalStorage } from "node:async_hooks";
import { z } from "zod";
import type { PendingActionInput, PendingActionStore } from "../../pending/pending-action-store.js";
import type { ResourceKind } from "../../runs/run-store.js";
import type { Tier, ToolContext, ToolOutput } from "../tool.js";

export const NO_STORE_MESSAGE = "Pending action store unavailable for custom tools in this runtime.";

export interface CustomToolApi {
  /** The zod the control plane validates with: build `args` schemas with it. */
  z: typeof z;
  /**
   * Stages a change for `resolve` and returns its id ("edit_K"). `sourceToolName` defaults to
   * "custom_tool". Use it only for destructive or high-impact operations.
   */
  pushPendingAction(action: PendingActionInput): string;
}

export interface CustomToolDefinition {
  /** Lower-case letters, digits and `_`, starting with a letter. */
  name: string;
  tier: Tier;
  description: string;
  args: z.ZodType;
  /** The resource the run must be wired with for the tool to exist (default "workspace"). */
  resource?: ResourceKind;
  /** True when the tool writes nothing itself and only stages pending actions. */
  stagesOnly?: boolean;
  run(args: never, ctx: ToolContext): Promise<string | ToolOutput> | string | ToolOutput;
}

export type CustomToolFactory = (api: CustomToolApi) => CustomToolDefinition | CustomToolDefinition[];

const activeStore = new AsyncLocalStorage<PendingActionStore | undefined>();

/** Runs a custom tool's handler with its run's store (if any) as the active one. */
export function withPendingStore<T>(store: PendingActionStore | undefined, fn: () => T): T {
  return activeStore.run(store, fn);
}

/** The API handed to factories; `storeOf` finds the active store (tests may pass their own). */
export function createCustomToolApi(storeOf: () => PendingActionStore | undefined = () => activeStore.getStore()): CustomToolApi {
  return {
    z,
    pushPendingAction(action) {
      const store = storeOf();
      if (!store) throw new Error(NO_STORE_MESSAGE);
      return store.push({ ...action, sourceToolName: action.sourceToolName ?? "custom_tool" }).id;
    },
  };
}
