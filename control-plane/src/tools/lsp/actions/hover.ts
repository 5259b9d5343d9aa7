// hover: the symbol's signature and doc comment.
import { LIMITS } from "../../../limits.js";
import { at, caveats } from "../lsp-format.js";
import { LspQueryKind } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { defineAction, lspQuery, POSITION_NEEDS, positionArgs } from "./action.js";

export const hoverAction = defineAction({
  name: "hover",
  args: positionArgs("hover"),
  needs: POSITION_NEEDS,
  async run(args, client) {
    const res = await lspQuery(client, LspQueryKind.LSP_QUERY_KIND_HOVER, args);
    const subject = `\`${args.symbol}\` at ${at(res.target)}`;
    if (!res.hover) return `${res.server} has no hover information for ${subject}.${caveats(res)}`;
    const body =
      res.hover.length > LIMITS.lspHoverChars ? `${res.hover.slice(0, LIMITS.lspHoverChars)}\n[… cut at ${LIMITS.lspHoverChars} characters]` : res.hover;
    return `${subject} (${res.server}):\n${body}${caveats(res)}`;
  },
});
