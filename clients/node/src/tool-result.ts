// What a tool call resolves with: the generated ToolResult, its details parsed, and its text joined.
import { joinLines } from "@enclave/proto/result-text.js";
import type { PendingState, ToolResult } from "@enclave/proto/gen/enclave/control/v1/control.js";

/**
 * A tool's result with its details parsed: `details` follows the tool's details schema (ListTools' details_schema_json), undefined when it sent none.
 * `pending` is the run's staged changes once the call ended: `requiredNextTool` is "resolve" while any is pending.
 */
export interface ToolCallResult extends ToolResult {
  details: unknown;
  pending: PendingState;
}

/** Nothing pending: what a result of a server that sends no pending state is read as. */
const NOTHING_PENDING: PendingState = { requiredNextTool: "", pendingIds: [], labels: [] };

/** Parses the result's details_json (a result without one gets undefined), and gives it a pending state always. */
export function withDetails(r: ToolResult): ToolCallResult {
  return { ...r, details: r.detailsJson === "" ? undefined : (JSON.parse(r.detailsJson) as unknown), pending: r.pending ?? { ...NOTHING_PENDING } };
}

/** The result's text parts joined, for people and tests (rich parts such as HTML are left out). */
export function resultText(r: ToolResult): string {
  const texts = r.parts
    .filter((p) => p.part?.$case !== "rich")
    .map((p) =>
      p.part?.$case === "text" ? p.part.value : p.part?.$case === "image" ? `[image ${p.part.value.mimeType}, ${p.part.value.data.length} bytes]` : "",
    );
  return joinLines(texts);
}
