// The shared shape of definition, type_definition, implementation and references.
import { at, capNote, caveats, locationLine, plural } from "../lsp-format.js";
import type { LspQueryKind } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { defineAction, type LspAction, lspQuery, POSITION_NEEDS, positionArgs } from "./action.js";

export function locationsAction(name: string, kind: LspQueryKind, noun: string, cap: number): LspAction {
  return defineAction({
    name,
    args: positionArgs(name),
    needs: POSITION_NEEDS,
    async run(args, client) {
      const res = await lspQuery(client, kind, args, cap);
      const subject = `\`${args.symbol}\` at ${at(res.target)}`;
      if (res.locations.length === 0) return `No ${noun} found for ${subject} (${res.server}).${caveats(res)}`;
      const head = `${plural(res.total, noun)} for ${subject} (${res.server})${capNote(res.locations.length, res.total, cap)}:`;
      return `${head}\n${res.locations.map(locationLine).join("\n")}${caveats(res)}`;
    },
  });
}
