// definition, type_definition, implementation and references: each answers with locations (or
// location links), normalized to shown locations.
import type { LspLocation } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { AgentError } from "../../errors.js";
import type { Location, LocationLink } from "../lsp-types.js";
import { type Feature, type FeatureContext, positionOf } from "./feature-context.js";

type LocationAnswer = Location | Location[] | LocationLink[] | null;

export function toLocations(ctx: FeatureContext, answer: LocationAnswer): LspLocation[] {
  if (!answer) return [];
  const list = Array.isArray(answer) ? answer : [answer];
  return list.map((l) =>
    "targetUri" in l ? ctx.sources.location(l.targetUri, l.targetSelectionRange ?? l.targetRange) : ctx.sources.location(l.uri, l.range),
  );
}

function locationFeature(method: string, capability: string, action: string, extra: Record<string, unknown> = {}): Feature {
  return {
    positional: true,
    async run(ctx) {
      if (!ctx.conn.supports(method, capability)) {
        throw new AgentError("failed_precondition", `the ${ctx.conn.id} language server does not support ${action} (it does not offer ${method})`);
      }
      const answer = await ctx.conn.request<LocationAnswer>(method, { textDocument: { uri: ctx.doc.uri }, position: positionOf(ctx), ...extra }, ctx.timeoutMs);
      const all = toLocations(ctx, answer);
      const max = ctx.req.maxResults > 0 ? ctx.req.maxResults : all.length;
      return { locations: all.slice(0, max), total: all.length };
    },
  };
}

export const definitionFeature = locationFeature("textDocument/definition", "definitionProvider", "definition");
export const typeDefinitionFeature = locationFeature("textDocument/typeDefinition", "typeDefinitionProvider", "type_definition");
export const implementationFeature = locationFeature("textDocument/implementation", "implementationProvider", "implementation");
export const referencesFeature = locationFeature("textDocument/references", "referencesProvider", "references", { context: { includeDeclaration: true } });
