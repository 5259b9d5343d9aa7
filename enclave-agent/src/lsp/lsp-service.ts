// The Lsp gRPC service: resolves the file with the one path resolver, picks and starts the server,
// syncs the document from disk, and hands the query to its feature (one file per feature). The agent
// owns the Language Server Protocol; which tool action asks for which LspQueryKind, and with which
// fields, is the control plane's (its lsp tool's schema).
import { relative } from "node:path";
import {
  LspQueryKind,
  LspServerState,
  type LspQueryRequest,
  type LspQueryResponse,
  type LspRenameResponse,
  type LspServer,
} from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { AgentError } from "../errors.js";
import type { WorkspacePaths } from "../fs/workspace-paths.js";
import type { WorkspaceWriter } from "../fs/workspace-writer.js";
import { unary } from "../grpc/unary.js";
import { LIMITS } from "../limits.js";
import { LANGUAGE_SERVERS } from "@enclave/proto/server-registry.js";
import { refreshOpenDocuments, syncFromDisk } from "./document-sync.js";
import { fileDiagnostics } from "./file-diagnostics.js";
import { codeActionsFeature } from "./features/code-actions.js";
import { diagnosticsFeature } from "./features/diagnostics.js";
import type { Feature } from "./features/feature-context.js";
import { definitionFeature, implementationFeature, referencesFeature, typeDefinitionFeature } from "./features/locations.js";
import { hoverFeature } from "./features/hover.js";
import { documentSymbolsFeature, workspaceSymbolsFeature } from "./features/symbols.js";
import { renameSymbol } from "./features/rename.js";
import { invalidIdentifier } from "./identifier-rules.js";
import { runChecker } from "./run-checker.js";
import { SourceLines } from "./source-lines.js";
import { searchTargets } from "./search-targets.js";
import type { ServerConnection } from "./server-connection.js";
import type { LspSupervisor, ServerState } from "./supervisor.js";
import { locateSymbol, parseSymbol } from "./text-positions.js";
import { queuedEventsRead } from "./open-document-watch.js";

const FEATURES: Partial<Record<LspQueryKind, Feature>> = {
  [LspQueryKind.LSP_QUERY_KIND_DEFINITION]: definitionFeature,
  [LspQueryKind.LSP_QUERY_KIND_TYPE_DEFINITION]: typeDefinitionFeature,
  [LspQueryKind.LSP_QUERY_KIND_IMPLEMENTATION]: implementationFeature,
  [LspQueryKind.LSP_QUERY_KIND_REFERENCES]: referencesFeature,
  [LspQueryKind.LSP_QUERY_KIND_HOVER]: hoverFeature,
  [LspQueryKind.LSP_QUERY_KIND_DOCUMENT_SYMBOLS]: documentSymbolsFeature,
  [LspQueryKind.LSP_QUERY_KIND_WORKSPACE_SYMBOLS]: workspaceSymbolsFeature,
  [LspQueryKind.LSP_QUERY_KIND_CODE_ACTIONS]: codeActionsFeature,
  [LspQueryKind.LSP_QUERY_KIND_DIAGNOSTICS]: diagnosticsFeature,
};

const SERVER_STATES: Record<ServerState["state"], LspServerState> = {
  running: LspServerState.LSP_SERVER_STATE_RUNNING,
  available: LspServerState.LSP_SERVER_STATE_AVAILABLE,
  missing_marker: LspServerState.LSP_SERVER_STATE_MISSING_MARKER,
  missing_binary: LspServerState.LSP_SERVER_STATE_MISSING_BINARY,
  broken: LspServerState.LSP_SERVER_STATE_BROKEN,
};

function timeoutOf(ms: number): number {
  return Math.min(ms > 0 ? ms : LIMITS.lspRequestTimeoutMs, LIMITS.lspStartTimeoutMs);
}

/** One root marker per server, as examples of what makes a folder a project a server can start in. */
const MARKER_EXAMPLES = LANGUAGE_SERVERS.filter((s, i, all) => all.findIndex((o) => o.rootMarkers[0] === s.rootMarkers[0]) === i)
  .map((s) => `${s.rootMarkers[0]} (${s.id})`)
  .join(", ");

/**
 * A search with no file and no server to start says the two ways on: a file names the server to
 * start (its error, if it cannot, says what that server lacks), or a root marker makes a project.
 */
const NO_SEARCHABLE_SERVER =
  "no language server can search this workspace: no folder has both a server's root marker and a file of its language with that server installed. " +
  "To go on: call lsp with action symbols and `file` set to one of your source files (that starts its server, or says what the server lacks), " +
  `or add the server's root marker to the folder of your sources and ask again (${MARKER_EXAMPLES}); lsp with action status lists each server's markers and whether it is installed`;

export function lspService(paths: WorkspacePaths, sup: LspSupervisor, writer: WorkspaceWriter): LspServer {
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
    // One turn of the event loop, once: the folder events queued before this call (a marker or a
    // file written by the call before) are read before the root lookup and the open documents ask
    // their watches.
    await queuedEventsRead();
    const choice = sup.primaryFor(abs);
    const conn = await sup.connect(choice);
    const languageId = sup.languageIdFor(abs);
    // Read again only when the file may have changed since it was synced (the folder watch says).
    const doc = await syncFromDisk(paths, conn, abs, rel, languageId, save);
    for (const other of sup.runningFor(abs)) if (other !== conn && other.isOpen(doc.uri)) await syncFromDisk(paths, other, abs, rel, languageId, save);
    await refreshOpenDocuments(paths, conn, (p) => sup.languageIdFor(p), doc.uri);
    await conn.settle();
    return { abs, rel, conn, doc, root: relative(paths.root, choice.root) || "." };
  }

  /**
   * A workspace symbol search with no file: every server whose root marker, binary and a file of its
   * language are in the workspace is started (if it is not running) and asked, and the answers merged.
   * A server that fails is named in `server`; only when every one fails is the search an error.
   */
  async function searchEverywhere(req: LspQueryRequest): Promise<LspQueryResponse> {
    const { targets, skipped } = searchTargets(paths.root);
    if (targets.length === 0) {
      throw new AgentError("lsp_no_server", NO_SEARCHABLE_SERVER);
    }
    const timeoutMs = timeoutOf(req.timeoutMs);
    const deadline = Date.now() + timeoutMs;
    const seen = new Set<ServerConnection>();
    const failures: string[] = [];
    const answers = await Promise.all(
      targets.map(async (t) => {
        try {
          const { rel, conn, doc } = await prepare(t.file);
          // Two roots' files may land on one server: ask it once.
          if (seen.has(conn)) return undefined;
          seen.add(conn);
          const result = await workspaceSymbolsFeature.run({
            conn,
            rel,
            doc,
            position: undefined,
            symbolLength: 0,
            req,
            timeoutMs,
            sources: sourcesFor([conn]),
            deadline,
          });
          return { conn, result };
        } catch (err) {
          failures.push(`${t.serverId}@${t.root} could not search: ${(err as Error).message.slice(0, 300)}`);
          return undefined;
        }
      }),
    );
    const answered = answers.filter((a) => a !== undefined);
    if (answered.length === 0) {
      throw new AgentError(
        "failed_precondition",
        `no language server could search the workspace: ${failures.join(" | ")}. ` +
          "To go on: fix what each says, then call lsp with action reload (a server that died) or ask again; lsp with action status shows each server's state",
      );
    }
    const symbols = answered.flatMap((a) => a.result.symbols ?? []);
    const notes = [...failures, ...(skipped.length ? [`not searched (at most ${LIMITS.lspSearchMaxServers} servers): ${skipped.join(", ")}`] : [])];
    return {
      server: `${[...new Set(answered.map((a) => a.conn.id))].join(", ")}${notes.length ? `; ${notes.join("; ")}` : ""}`,
      root: ".",
      target: undefined,
      locations: [],
      hover: "",
      symbols: req.maxResults > 0 ? symbols.slice(0, req.maxResults) : symbols,
      actions: [],
      diagnostics: [],
      total: answered.reduce((n, a) => n + (a.result.total ?? 0), 0),
      indexing: answered.some((a) => a.conn.indexing),
      stale: answered.some((a) => a.result.stale ?? false),
      file: "",
    };
  }

  return {
    status: unary(async () => ({
      servers: sup.status().map((s) => ({
        id: s.id,
        languages: s.languages,
        state: SERVER_STATES[s.state],
        roots: s.roots,
        detail: s.detail,
        rootMarkers: s.rootMarkers,
        rootModes: s.rootModes,
      })),
    })),

    reload: unary(async (req) => sup.reload(req.file ? paths.resolve(req.file, "read").abs : undefined)),

    query: unary(async (req): Promise<LspQueryResponse> => {
      const feature = FEATURES[req.kind];
      if (!feature)
        throw new AgentError("invalid_argument", `unknown lsp query kind ${req.kind} (${LspQueryKind[req.kind] ?? "not in this agent's protocol"})`);
      if (req.kind === LspQueryKind.LSP_QUERY_KIND_WORKSPACE_SYMBOLS) {
        if (!req.query) throw new AgentError("invalid_argument", "a workspace symbol search needs `query`");
        // A workspace search goes to the server of `file` when given, else to every server that can start.
        if (!req.file) return searchEverywhere(req);
      }
      const file = req.file;
      const timeoutMs = timeoutOf(req.timeoutMs);
      const deadline = Date.now() + timeoutMs;
      const { abs, rel, conn, doc, root } = await prepare(file);
      let position;
      let symbolLength = 0;
      let target;
      const sources = sourcesFor([conn]).knows(doc.uri, abs);
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
      if (!req.file) throw new AgentError("invalid_argument", "give `file`: a workspace-relative path");
      // A name the language cannot have is refused before any server is asked (some apply it).
      const why = invalidIdentifier(sup.languageIdFor(paths.resolve(req.file, "read").abs), req.newName);
      if (why) throw new AgentError("invalid_argument", `new_name \`${req.newName}\` cannot be used: ${why}; nothing was changed`);
      let prepared = await prepare(req.file);
      // clangd's derived database misses files added since it started: restart it to index them.
      if (sup.databaseStale(prepared.conn)) {
        await sup.restart(prepared.conn);
        prepared = await prepare(req.file);
      }
      const { abs, rel, conn, doc } = prepared;
      const position = locateSymbol(doc.text, rel, req.line, req.symbol);
      return renameSymbol({
        paths,
        writer,
        sup,
        conn,
        abs,
        rel,
        doc,
        position,
        newName: req.newName,
        timeoutMs,
        sources: sourcesFor([conn]),
        baselineWaitMs: req.diagnosticsWaitMs,
      });
    }),

    sync: unary(async (req) => {
      const waitMs = Math.max(0, Math.min(req.waitMs, LIMITS.lspStartTimeoutMs));
      const deadline = Date.now() + waitMs;
      const files = await Promise.all(req.paths.map((p) => fileDiagnostics(paths, sup, p, deadline)));
      return { files };
    }),

    runChecker: unary(async (req) => runChecker(paths.root, req.timeoutMs)),
  };
}
