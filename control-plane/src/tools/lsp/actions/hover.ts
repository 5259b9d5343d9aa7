// hover: the symbol's signature and doc comment.
import { z } from "zod";
import { LIMITS } from "../../../limits.js";
import { at, caveats } from "../lsp-format.js";
import { LspQueryKind } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { locationDetails, POSITIONAL_DETAILS } from "../lsp-details.js";
import { defineAction, lspQuery, POSITION_NEEDS, positionArgs } from "./action.js";

export const HOVER_DETAILS = z.object({
  action: z.literal("hover"),
  ...POSITIONAL_DETAILS,
  contents: z
    .string()
    .nullable()
    .describe(`the server's hover text (markdown as the server wrote it), cut at ${LIMITS.lspHoverChars} characters; null when it has none`),
  truncated: z.boolean().describe("contents were cut"),
});

export const hoverAction = defineAction({
  name: "hover",
  args: positionArgs("hover"),
  details: HOVER_DETAILS,
  needs: POSITION_NEEDS,
  async run(args, client) {
    const res = await lspQuery(client, LspQueryKind.LSP_QUERY_KIND_HOVER, args);
    const subject = `\`${args.symbol}\` at ${at(res.target)}`;
    const cut = res.hover.length > LIMITS.lspHoverChars;
    const details = {
      action: "hover" as const,
      server: res.server,
      target: res.target ? locationDetails(res.target) : null,
      indexing: res.indexing,
      contents: res.hover ? res.hover.slice(0, LIMITS.lspHoverChars) : null,
      truncated: cut,
    };
    if (!res.hover) return { text: `${res.server} has no hover information for ${subject}.${caveats(res)}`, details };
    const body = cut ? `${res.hover.slice(0, LIMITS.lspHoverChars)}\n[… cut at ${LIMITS.lspHoverChars} characters]` : res.hover;
    return { text: `${subject} (${res.server}):\n${body}${caveats(res)}`, details };
  },
});
