// The Lsp gRPC service: resolves the file with the one path resolver, picks and starts the server,
// syncs the document from disk, and hands the query to its feature (one file per feature).
import { relative } from "node:path";
import type {
  LspFileDiagnostics,
  LspQueryResponse,
  LspRenameResponse,
  LspServer,
} from "../../../proto/gen/enclave/agent/v1/lsp.js";
import { AgentError } from "../errors.js";
import type { WorkspacePaths } from "../fs/workspace-paths.js";
import { unary } from "../grpc/unary.js";
import { LIMITS } from "../limits.js";
import { freshDiagnostics, readText, refreshOpenDocuments, type Synced, syncText, uriOf } from "./document-sync.js";
import { codeActionsFeature } from "./features/code-actions.js";
import { diagnosticsFeature, toDiagnostics } from "./features/diagnostics.js";
import type { Feature } from "./features/feature-context.js";
import { definitionFeature, implementationFeature, referencesFeature, typeDefinitionFeature } from "./features/locations.js";
import { hoverFeature } from "./features/hover.js";
import { documentSymbolsFeature, workspaceSymbolsFeature } from "./features/symbols.js";
import { renameSymbol } from "./features/rename.js";
import { runChecker } from "./run-checker.js";
import { SourceLines } from "./source-lines.js";
import type { LspSupervisor } from "./supervisor.js";
import { locateSymbol, parseSymbol } from "./text-positions.js";

const FEATURES: Record<string, Feature> = {
  definition: definitionFeature,
  type_definition: typeDefinitionFeature,
  implementation: implementationFeature,
  references: referencesFeature,
  hover: hoverFeature,
  symbols: documentSymbolsFeature,
  code_actions: codeActionsFeature,
  diagnostics: diagnosticsFeature,
};

function timeoutOf(ms: number): number {
  return Math.min(ms > 0 ? ms : LIMITS.lspRequestTimeoutMs, LIMITS.lspStartTimeoutMs);
}

export function lspService(paths: WorkspacePaths, sup: LspSupervisor): LspServer {
  const sourcesFor = (conns: { openText(uri: string): string | undefined }[]): SourceLines =>
    new SourceLines(paths, (uri) => {
      for (const c of conns) {
        const t = c.openText(uri);
        if (t !== undefined) return t;
      }
      return undefined;
    });

  /** Opens the file in its server (and keeps any other running server for it in step). */
  async function prepare(file: string, save = false) {
    if (!file) throw new AgentError("invalid_argument", "give `file`: a workspace-relative path");
    const { abs, rel } = paths.resolve(file, "read");
    const choice = sup.primaryFor(abs);
    const conn = await sup.connect(choice);
    const text = await readText(paths, rel);
    const languageId = sup.languageIdFor(abs);
    const doc = syncText(paths, conn, abs, languageId, text, save);
    for (const other of sup.runningFor(abs)) if (other !== conn && other.isOpen(doc.uri)) syncText(paths, other, abs, languageId, text, save);
    await refreshOpenDocuments(paths, conn, (p) => sup.languageIdFor(p), doc.uri);
    await conn.settle();
    return { abs, rel, conn, doc, root: relative(paths.root, choice.root) || "." };
  }

  return {
    status: unary(async () => ({
      servers: sup.status().map((s) => ({ id: s.id, languages: s.languages, state: s.state, roots: s.roots, detail: s.detail, rootMarkers: s.rootMarkers })),
    })),

    reload: unary(async (req) => sup.reload(req.file ? paths.resolve(req.file, "read").abs : undefined)),

    query: unary(async (req): Promise<LspQueryResponse> => {
      const action = req.action === "symbols" && req.query ? "workspace_symbols" : req.action;
      const feature = action === "workspace_symbols" ? workspaceSymbolsFeature : FEATURES[action];
      if (action === "symbols" && !req.file) throw new AgentError("invalid_argument", "symbols needs `query` (a workspace search) or `file` (that file's outline)");
      if (!feature) throw new AgentError("invalid_argument", `unknown lsp action \`${req.action}\`; one of ${Object.keys(FEATURES).join(", ")}, status, reload`);
      let file = req.file;
      if (action === "workspace_symbols") {
        // A workspace search goes to the server of `file` when given, else to a running server.
        file = req.file || (sup.anyOpenFile() ?? "");
        if (!file) throw new AgentError("failed_precondition", "no language server is running to search the workspace; give `file` too (any file of the language to search), or ask about a file first");
      }
      const timeoutMs = timeoutOf(req.timeoutMs);
      const deadline = Date.now() + timeoutMs;
      const { rel, conn, doc, root } = await prepare(file);
      let position;
      let symbolLength = 0;
      let target;
      const sources = sourcesFor([conn]);
      if (feature.positional) {
        position = locateSymbol(doc.text, rel, req.line, req.symbol);
        symbolLength = parseSymbol(req.symbol).name.length;
        target = sources.location(doc.uri, { start: position, end: { line: position.line, character: position.character + symbolLength } });
      }
      const result = await feature.run({ conn, rel, doc, position, symbolLength, req, timeoutMs, sources, deadline });
      return {
        server: conn.id,
        root,
        target,
        locations: result.locations ?? [],
        hover: result.hover ?? "",
        symbols: result.symbols ?? [],
        actions: result.actions ?? [],
        diagnostics: result.diagnostics ?? [],
        total: result.total ?? 0,
        indexing: conn.indexing,
        stale: result.stale ?? false,
        file: rel,
      };
    }),

    rename: unary(async (req): Promise<LspRenameResponse> => {
      const timeoutMs = timeoutOf(req.timeoutMs);
      const { abs, rel, conn, doc } = await prepare(req.file);
      const position = locateSymbol(doc.text, rel, req.line, req.symbol);
      return renameSymbol({ paths, sup, conn, abs, rel, doc, position, newName: req.newName, timeoutMs, sources: sourcesFor([conn]) });
    }),

    sync: unary(async (req) => {
      const waitMs = Math.max(0, Math.min(req.waitMs, LIMITS.lspStartTimeoutMs));
      const deadline = Date.now() + waitMs;
      const files = await Promise.all(req.paths.map((p) => syncOne(p, deadline)));
      return { files };
    }),

    runChecker: unary(async (req) => runChecker(paths.root, req.timeoutMs)),
  };

  async function syncOne(path: string, deadline: number): Promise<LspFileDiagnostics> {
    let abs: string;
    let rel: string;
    try {
      ({ abs, rel } = paths.resolve(path, "read"));
    } catch (err) {
      return { path, servers: [], state: "failed", diagnostics: [], detail: (err as Error).message };
    }
    const exists = await readText(paths, rel).then(
      (t) => t,
      () => undefined,
    );
    if (exists === undefined) {
      for (const c of sup.runningFor(abs)) c.closeDocument(uriOf(abs));
      return { path: rel, servers: [], state: "deleted", diagnostics: [], detail: "" };
    }
    let choice;
    try {
      choice = sup.primaryFor(abs);
    } catch (err) {
      return { path: rel, servers: [], state: "no_server", diagnostics: [], detail: (err as Error).message };
    }
    // Starting a server counts against the wait: a write never blocks on a slow start.
    const started = sup.connect(choice);
    const conn = await Promise.race([started, new Promise<undefined>((r) => setTimeout(() => r(undefined), Math.max(0, deadline - Date.now())))]).catch(
      (err: unknown) => err as Error,
    );
    if (conn === undefined) {
      return { path: rel, servers: [choice.spec.id], state: "late", diagnostics: [], detail: `${choice.spec.id} is still starting` };
    }
    if (conn instanceof Error) return { path: rel, servers: [choice.spec.id], state: "failed", diagnostics: [], detail: conn.message };
    const languageId = sup.languageIdFor(abs);
    let doc: Synced | undefined;
    for (const c of sup.runningFor(abs)) {
      const s = syncText(paths, c, abs, languageId, exists, true);
      if (c === conn) doc = s;
    }
    doc ??= syncText(paths, conn, abs, languageId, exists, true);
    try {
      const items = await freshDiagnostics(conn, doc, deadline);
      if (items === undefined) return { path: rel, servers: [conn.id], state: "late", diagnostics: [], detail: "" };
      return { path: rel, servers: [conn.id], state: "fresh", diagnostics: toDiagnostics(sourcesFor([conn]), doc.uri, items), detail: "" };
    } catch (err) {
      return { path: rel, servers: [conn.id], state: "failed", diagnostics: [], detail: (err as Error).message };
    }
  }
}
