// hover: the signature and doc comment, as the server's markdown or plain text.
import type { Hover, MarkedString } from "../lsp-types.js";
import { type Feature, positionOf } from "./feature-context.js";

function markedToText(m: MarkedString): string {
  return typeof m === "string" ? m : `\`\`\`${m.language}\n${m.value}\n\`\`\``;
}

export function hoverText(h: Hover | null): string {
  if (!h?.contents) return "";
  const c = h.contents;
  if (Array.isArray(c)) return c.map(markedToText).join("\n\n");
  if (typeof c === "object" && "kind" in c) return c.value;
  return markedToText(c);
}

export const hoverFeature: Feature = {
  positional: true,
  async run(ctx) {
    const h = await ctx.conn.request<Hover | null>("textDocument/hover", { textDocument: { uri: ctx.doc.uri }, position: positionOf(ctx) }, ctx.timeoutMs);
    return { hover: hoverText(h).trim() };
  },
};
