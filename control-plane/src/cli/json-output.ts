// What --json prints for the shapes that are not plain data already: a tool result's parts (an
// image's bytes as base64) and a tool call's answer.
import type { ToolCallResult } from "@enclave/client/control-plane-client.js";
import type { ContentPart } from "@enclave/proto/gen/enclave/control/v1/control.js";

export type PartJson =
  | { type: "text"; text: string; repeatsStreamed: boolean }
  | { type: "image"; mimeType: string; dataBase64: string; repeatsStreamed: boolean }
  | { type: "rich"; mimeType: string; text: string; repeatsStreamed: boolean }
  | { type: "empty"; repeatsStreamed: boolean };

export function partJson(p: ContentPart): PartJson {
  const repeatsStreamed = p.repeatsStreamed;
  switch (p.part?.$case) {
    case "text":
      return { type: "text", text: p.part.value, repeatsStreamed };
    case "image":
      return { type: "image", mimeType: p.part.value.mimeType, dataBase64: Buffer.from(p.part.value.data).toString("base64"), repeatsStreamed };
    case "rich":
      return { type: "rich", mimeType: p.part.value.mimeType, text: p.part.value.text, repeatsStreamed };
    default:
      return { type: "empty", repeatsStreamed };
  }
}

/** `tool call --json`: the whole result, every part (streamed output is not printed apart). */
export interface ToolCallJson {
  isError: boolean;
  /** "" when the call succeeded. */
  errorCode: string;
  parts: PartJson[];
  durationMs: number;
  /** The result as data, shaped by the tool's details schema (`tools list --json`: detailsSchema); null when the tool sent none. */
  details: unknown;
}

export function toolCallJson(r: ToolCallResult): ToolCallJson {
  return { isError: r.isError, errorCode: r.errorCode, parts: r.parts.map(partJson), durationMs: r.durationMs, details: r.details ?? null };
}
