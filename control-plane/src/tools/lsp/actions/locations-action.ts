// The shared shape of definition, type_definition, implementation and references.
import { z } from "zod";
import { LIMITS } from "../../../limits.js";
import { at, capNote, caveats, locationLine, plural } from "../lsp-format.js";
import type { LspQueryKind } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { LIST_BOUND, LOCATION_DETAILS, locationDetails, POSITIONAL_DETAILS } from "../lsp-details.js";
import { defineAction, type LspAction, lspQuery, POSITION_NEEDS, positionArgs } from "./action.js";

export const LOCATIONS_ACTIONS = ["definition", "type_definition", "implementation", "references"] as const;

/** One schema for the four: they answer alike, and a harness reads them alike. */
export const LOCATIONS_DETAILS = z.object({
  action: z.enum(LOCATIONS_ACTIONS),
  ...POSITIONAL_DETAILS,
  locations: z.array(LOCATION_DETAILS).describe(`in the server's order, at most ${LIMITS.lspReferencesCap} references or 50 of the others`),
  ...LIST_BOUND,
});

export function locationsAction(name: (typeof LOCATIONS_ACTIONS)[number], kind: LspQueryKind, noun: string, cap: number): LspAction {
  return defineAction({
    name,
    args: positionArgs(name),
    details: LOCATIONS_DETAILS,
    needs: POSITION_NEEDS,
    async run(args, client) {
      const res = await lspQuery(client, kind, args, cap);
      const subject = `\`${args.symbol}\` at ${at(res.target)}`;
      const details = {
        action: name,
        server: res.server,
        target: res.target ? locationDetails(res.target) : null,
        indexing: res.indexing,
        locations: res.locations.map(locationDetails),
        total: Math.max(res.total, res.locations.length),
        truncated: res.total > res.locations.length,
      };
      if (res.locations.length === 0) return { text: `No ${noun} found for ${subject} (${res.server}).${caveats(res)}`, details };
      const head = `${plural(res.total, noun)} for ${subject} (${res.server})${capNote(res.locations.length, res.total, cap)}:`;
      return { text: `${head}\n${res.locations.map(locationLine).join("\n")}${caveats(res)}`, details };
    },
  });
}
