// The shared shape of definition, type_definition, implementation and references.
import { LIMITS } from "../../limits.js";
import { at, capNote, caveats, locationLine, plural } from "../lsp-format.js";
import type { LspAction } from "./action.js";

export function locationsAction(name: string, noun: string, cap: number): LspAction {
  return {
    name,
    needs: "position",
    async run(args, client) {
      const res = await client.lspQuery(
        { action: name, file: args.file ?? "", line: args.line ?? 0, symbol: args.symbol ?? "", query: "", timeoutMs: LIMITS.lspRequestTimeoutMs, maxResults: cap },
        LIMITS.lspRequestTimeoutMs,
      );
      const subject = `\`${args.symbol}\` at ${at(res.target)}`;
      if (res.locations.length === 0) return `No ${noun} found for ${subject} (${res.server}).${caveats(res)}`;
      const head = `${plural(res.total, noun)} for ${subject} (${res.server})${capNote(res.locations.length, res.total, cap)}:`;
      return `${head}\n${res.locations.map(locationLine).join("\n")}${caveats(res)}`;
    },
  };
}
