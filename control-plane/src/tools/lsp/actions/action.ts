// One lsp action: its argument schema (with its `action` literal, so the tool's schema is a union
// discriminated by action and the rules a model sees are the rules enforced), why each required
// field is needed, and how it asks the agent and words the answer. Each action lives in its own file
// beside this one; lsp-tool.ts is only the table. The control plane owns the actions and their
// rules; the agent owns the Language Server Protocol and gets one LspQueryKind per query.
import { z } from "zod";
import type { LspQueryKind, LspQueryResponse } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import type { AgentClient } from "../../../agent-client/agent-client.js";
import { LIMITS } from "../../../limits.js";
import type { Run } from "../../../model/run.js";
import type { DiagnosticsLedger } from "../diagnostics-ledger.js";

/** The run a call belongs to, and its ledger (what diagnostics shows is then already reported). */
export interface LspEnv {
  run: Run;
  ledger: DiagnosticsLedger;
}

/** An action's answer: the text the model reads, and the same answer as data (its details schema). */
export interface LspAnswer<D> {
  text: string;
  details: D;
}

export interface LspAction<S extends z.ZodObject = z.ZodObject, D extends z.ZodObject = z.ZodObject> {
  name: string;
  args: S;
  /** The shape of its details, with its `action` literal: the tool's details are a union discriminated by action. */
  details: D;
  /** Why each field the schema requires is needed, for the error that names a missing one. */
  needs: Record<string, string>;
  run(args: z.infer<S>, client: AgentClient, env: LspEnv): Promise<LspAnswer<z.infer<D>>>;
}

export function defineAction<S extends z.ZodObject, D extends z.ZodObject>(a: LspAction<S, D>): LspAction {
  return a as unknown as LspAction;
}

/** A workspace-relative file; "*" (the project's checker) belongs to diagnostics alone. */
export function fileField(action: string): z.ZodString {
  return z
    .string()
    .min(1)
    .regex(/^(?!\*$)/, { message: `"*" is only for diagnostics; give a file to ${action}` })
    .describe("workspace-relative file");
}

export const POSITION_NEEDS: Record<string, string> = {
  file: "the workspace-relative file the symbol is in",
  line: "the 1-based line the symbol is on",
  symbol: "the symbol's name as written on that line (`name#2` for its second occurrence); columns are never guessed",
};

/** The schema of an action asked at a symbol: file, 1-based line, and the symbol as written there. */
export function positionArgs<N extends string>(action: N) {
  return z.strictObject({
    action: z.literal(action),
    file: fileField(action).describe("workspace-relative file the symbol is in"),
    line: z.number().int().min(1).describe("1-based line of the symbol"),
    symbol: z.string().min(1).describe("the symbol as written on that line; `name#N` for its Nth occurrence"),
  });
}

/** Asks the agent's supervisor one query, with the lsp request deadline; unset fields are empty. */
export function lspQuery(
  client: AgentClient,
  kind: LspQueryKind,
  args: { file?: string; line?: number; symbol?: string; query?: string },
  maxResults = 0,
): Promise<LspQueryResponse> {
  return client.lspQuery(
    { kind, file: args.file ?? "", line: args.line ?? 0, symbol: args.symbol ?? "", query: args.query ?? "", timeoutMs: LIMITS.lspCallTimeoutMs, maxResults },
    LIMITS.lspCallTimeoutMs,
  );
}
