// What every lsp feature gets: the server connection, the file as the server now has it, the
// resolved position (for navigation), and a converter to shown locations.
import type { LspQueryRequest, LspQueryResponse } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import type { Position } from "../lsp-types.js";
import type { ServerConnection } from "../server-connection.js";
import type { SourceLines } from "../source-lines.js";
import type { Synced } from "../document-sync.js";

export interface FeatureContext {
  conn: ServerConnection;
  rel: string;
  doc: Synced;
  /** Resolved from line + symbol; only navigation features have one. */
  position: Position | undefined;
  /** Length of the symbol at position, in UTF-16 units (for ranges). */
  symbolLength: number;
  req: LspQueryRequest;
  timeoutMs: number;
  sources: SourceLines;
  deadline: number;
}

export type FeatureResult = Partial<Omit<LspQueryResponse, "server" | "root" | "target" | "indexing">>;

export interface Feature {
  /** Needs line + symbol. */
  positional: boolean;
  run(ctx: FeatureContext): Promise<FeatureResult>;
}

export function positionOf(ctx: FeatureContext): Position {
  if (!ctx.position) throw new Error("a positional feature ran without a position");
  return ctx.position;
}
