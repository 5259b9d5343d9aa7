// symbols: a file's outline (document symbols, nested), or a workspace search by query.
import type { LspSymbol } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { type DocumentSymbol, type SymbolInformation, SYMBOL_KINDS } from "../lsp-types.js";
import type { Feature, FeatureContext } from "./feature-context.js";

function kindName(kind: number): string {
  return SYMBOL_KINDS[kind] || `kind ${kind}`;
}

function fromInformation(ctx: FeatureContext, s: SymbolInformation): LspSymbol {
  const loc =
    "range" in s.location
      ? ctx.sources.location(s.location.uri, s.location.range)
      : { ...ctx.sources.location(s.location.uri, { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }), line: 0 };
  return { name: s.name, kind: kindName(s.kind), container: s.containerName ?? "", location: loc, depth: 0, detail: "" };
}

function flatten(ctx: FeatureContext, list: DocumentSymbol[], depth: number, container: string, out: LspSymbol[]): void {
  for (const s of list) {
    out.push({
      name: s.name,
      kind: kindName(s.kind),
      container,
      location: ctx.sources.location(ctx.doc.uri, s.selectionRange ?? s.range),
      depth,
      detail: s.detail ?? "",
    });
    if (s.children?.length) flatten(ctx, s.children, depth + 1, s.name, out);
  }
}

export const documentSymbolsFeature: Feature = {
  positional: false,
  async run(ctx) {
    const answer = await ctx.conn.request<Array<DocumentSymbol | SymbolInformation> | null>(
      "textDocument/documentSymbol",
      { textDocument: { uri: ctx.doc.uri } },
      ctx.timeoutMs,
    );
    const out: LspSymbol[] = [];
    const list = answer ?? [];
    if (list.length && "location" in (list[0] as object)) for (const s of list as SymbolInformation[]) out.push(fromInformation(ctx, s));
    else flatten(ctx, list as DocumentSymbol[], 0, "", out);
    const max = ctx.req.maxResults > 0 ? ctx.req.maxResults : out.length;
    return { symbols: out.slice(0, max), total: out.length };
  },
};

export const workspaceSymbolsFeature: Feature = {
  positional: false,
  async run(ctx) {
    const answer = await ctx.conn.request<SymbolInformation[] | null>("workspace/symbol", { query: ctx.req.query }, ctx.timeoutMs);
    const all = (answer ?? []).map((s) => fromInformation(ctx, s));
    const max = ctx.req.maxResults > 0 ? ctx.req.maxResults : all.length;
    return { symbols: all.slice(0, max), total: all.length };
  },
};
