// Turns what author code returned (an AgentToolResult, or a plain string) into a call's content
// parts. Author code is not trusted to be well-formed: anything else is a clear error naming who
// returned it, never a part that renders as "[object Object]" or "undefined".
import { EnclaveError } from "../../errors.js";
import type { ContentPart } from "../tool.js";

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function describe(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? `an object with keys ${Object.keys(value).join(", ") || "(none)"}` : `a ${typeof value}`;
}

function part(raw: unknown, at: string, who: string): ContentPart {
  const bad = (why: string): never => {
    throw new EnclaveError("failed", `${who} returned an invalid result: content[${at}] ${why}`);
  };
  if (typeof raw !== "object" || raw === null) return bad(`is ${raw === undefined ? "missing" : describe(raw)}, not a {type:"text"} or {type:"image"} part`);
  const p = raw as Record<string, unknown>;
  if (p.type === "text") {
    if (typeof p.text !== "string") return bad(`has type "text" but its text is ${p.text === undefined ? "missing" : describe(p.text)}`);
    return { type: "text", text: p.text };
  }
  if (p.type === "image") {
    if (typeof p.mimeType !== "string" || !p.mimeType.startsWith("image/")) return bad(`has type "image" but no image/* mimeType`);
    if (typeof p.data !== "string" || !BASE64.test(p.data.replace(/\s+/g, ""))) return bad(`has type "image" but its data is not base64 text`);
    return { type: "image", mimeType: p.mimeType, data: Buffer.from(p.data, "base64") };
  }
  return bad(`has type ${JSON.stringify(p.type) ?? "undefined"}; a part is {type:"text", text} or {type:"image", data, mimeType}`);
}

/** The parts of an AgentToolResult or a string; `who` names the code that returned it, for the error. */
export function resultParts(value: unknown, who: string): ContentPart[] {
  if (typeof value === "string") return [{ type: "text", text: value }];
  if (typeof value === "object" && value !== null && Array.isArray((value as { content?: unknown }).content)) {
    return (value as { content: unknown[] }).content.map((p, i) => part(p, String(i), who));
  }
  throw new EnclaveError("failed", `${who} returned ${describe(value)}: return { content: [{ type: "text", text }] } (an AgentToolResult) or a string`);
}
