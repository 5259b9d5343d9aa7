// hover: the symbol's signature and doc comment.
import { LIMITS } from "../../../limits.js";
import { at, caveats } from "../lsp-format.js";
import { type LspAction, lspQuery } from "./action.js";

export const hoverAction: LspAction = {
  name: "hover",
  needs: "position",
  async run(args, client) {
    const res = await lspQuery(client, "hover", { ...args, query: undefined });
    const subject = `\`${args.symbol}\` at ${at(res.target)}`;
    if (!res.hover) return `${res.server} has no hover information for ${subject}.${caveats(res)}`;
    const body = res.hover.length > LIMITS.lspHoverChars ? `${res.hover.slice(0, LIMITS.lspHoverChars)}\n[… cut at ${LIMITS.lspHoverChars} characters]` : res.hover;
    return `${subject} (${res.server}):\n${body}${caveats(res)}`;
  },
};
