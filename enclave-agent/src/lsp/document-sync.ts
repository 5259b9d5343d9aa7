// Keeps a server's copy of a file equal to the disk, and gets diagnostics newer than the last edit:
// pulled (textDocument/diagnostic) when the server offers it, otherwise the first push carrying the
// edit's version (or arriving after it), debounced.
import { fileURLToPath, pathToFileURL } from "node:url";
import { AgentError } from "../errors.js";
import type { WorkspacePaths } from "../fs/workspace-paths.js";
import type { Diagnostic } from "./lsp-types.js";
import type { ServerConnection } from "./server-connection.js";
import { tsserverDiagnostics } from "./tsserver-diagnostics.js";
import { sleep } from "@enclave/proto/wait.js";
import { OpenDocumentWatch } from "./open-document-watch.js";

export interface Synced {
  uri: string;
  text: string;
  version: number;
  changed: boolean;
  syncedAt: number;
  /** The file's modification time when its text was read (Infinity when unknown). */
  fileMtimeMs: number;
}

// The uri of a path is a pure function of it, asked several times per query: remembered (bounded).
const uris = new Map<string, string>();
const MAX_URIS = 4096;

export function uriOf(abs: string): string {
  let uri = uris.get(abs);
  if (uri === undefined) {
    uri = pathToFileURL(abs).href;
    if (uris.size >= MAX_URIS) uris.clear();
    uris.set(abs, uri);
  }
  return uri;
}

/** A workspace file's text, read through the path resolver's handles (hard links refused). */
export async function readText(paths: WorkspacePaths, path: string): Promise<string> {
  return (await paths.readFile(path, "read")).content.toString("utf8");
}

// When each open document was last read from disk (its stamp), and which ones may have changed since
// (by the folder watches), so a query brings the server's open documents up to date with files changed
// behind its back (by exec, a kernel, or a run without lsp) at a cost of what changed, not of how
// many are open.
interface FileStat {
  stamp: number;
  mtimeMs: number;
}
interface OpenState {
  stamps: Map<string, FileStat>;
  watch: OpenDocumentWatch;
}
const states = new WeakMap<ServerConnection, OpenState>();

function stateOf(conn: ServerConnection): OpenState {
  let s = states.get(conn);
  if (!s) {
    const watch = new OpenDocumentWatch();
    s = { stamps: new Map(), watch };
    states.set(conn, s);
    void conn.exited.then(() => watch.close());
  }
  return s;
}

/** The watch of a connection's open documents (tests count what a query looks at through it). */
export function openDocumentWatch(conn: ServerConnection): OpenDocumentWatch {
  return stateOf(conn).watch;
}

function statOf(paths: WorkspacePaths, abs: string): FileStat {
  try {
    const { st } = paths.stat(abs, "read");
    return { stamp: st.mtimeMs * 1e3 + st.size, mtimeMs: st.mtimeMs };
  } catch {
    return { stamp: -1, mtimeMs: Infinity };
  }
}

export function syncText(
  paths: WorkspacePaths,
  conn: ServerConnection,
  abs: string,
  languageId: string,
  text: string,
  save: boolean,
  stat = statOf(paths, abs),
): Synced {
  const uri = uriOf(abs);
  const state = stateOf(conn);
  state.stamps.set(uri, stat);
  state.watch.track(uri, abs);
  const syncedAt = Date.now();
  // Unknown mtime (Infinity): no start-up report is taken as describing it.
  const fileMtimeMs = stat.mtimeMs;
  const { version, changed } = conn.syncDocument(uri, languageId, text, save);
  return { uri, text, version, changed, syncedAt, fileMtimeMs };
}

/**
 * The document for `abs` as the server has it, synced from disk: read again only when the file may
 * have changed since it was last synced (or it is not open yet). The caller awaited queuedEventsRead()
 * since its call arrived.
 */
export async function syncFromDisk(
  paths: WorkspacePaths,
  conn: ServerConnection,
  abs: string,
  rel: string,
  languageId: string,
  save: boolean,
): Promise<Synced> {
  const uri = uriOf(abs);
  const state = stateOf(conn);
  const open = conn.openText(uri);
  const known = state.stamps.get(uri);
  if (open !== undefined && known && !save && !state.watch.isChanged(uri, abs)) {
    const version = conn.versionOf(uri) ?? 1;
    return { uri, text: open, version, changed: false, syncedAt: Date.now(), fileMtimeMs: known.mtimeMs };
  }
  const stat = statOf(paths, abs);
  return syncText(paths, conn, abs, languageId, await readText(paths, rel), save, stat);
}

/** Re-syncs the server's open documents whose files changed on disk since; closes deleted ones (as syncFromDisk, after queuedEventsRead()). */
export async function refreshOpenDocuments(
  paths: WorkspacePaths,
  conn: ServerConnection,
  languageIdFor: (abs: string) => string,
  except: string,
): Promise<void> {
  const state = stateOf(conn);
  for (const uri of state.watch.changed(conn.openUris())) {
    if (uri === except) continue;
    const abs = fileURLToPath(uri);
    const now = statOf(paths, abs);
    if (now.stamp === state.stamps.get(uri)?.stamp) {
      // Unchanged after all (an event for a touch, or the backstop sweep): watched again, clean.
      state.watch.track(uri, abs);
      continue;
    }
    if (now.stamp === -1) {
      conn.closeDocument(uri);
      state.stamps.delete(uri);
      state.watch.untrack(uri, abs);
      continue;
    }
    const text = await readText(paths, abs).catch(() => undefined);
    if (text !== undefined) syncText(paths, conn, abs, languageIdFor(abs), text, false, now);
  }
}

interface PullReport {
  kind: "full" | "unchanged";
  items?: Diagnostic[];
}

const lastPulled = new WeakMap<ServerConnection, Map<string, Diagnostic[]>>();

/** Fresh diagnostics for a synced document, or undefined when none came before the deadline. */
export async function freshDiagnostics(conn: ServerConnection, synced: Synced, deadline: number): Promise<Diagnostic[] | undefined> {
  if (conn.spec.diagnostics === "tsserver") {
    const budget = deadline - Date.now();
    if (budget <= 0) return undefined;
    try {
      return await tsserverDiagnostics(conn, synced.uri, budget);
    } catch (err) {
      if (!conn.alive) throw err;
      if (err instanceof AgentError && err.code === "lsp_timeout") return undefined;
      // An older server without the command: fall back to what it pushes.
    }
  }
  for (;;) {
    if (conn.supportsPullDiagnostics) {
      const pulled = await pullDiagnostics(conn, synced, deadline);
      if (pulled !== "failed") return pulled;
    }
    // An unchanged document gets no new push: its last one is current, if it is for this version.
    const target = { uri: synced.uri, version: synced.version, since: synced.syncedAt, fileMtimeMs: synced.fileMtimeMs };
    const last = synced.changed ? undefined : conn.pushedFor(target);
    if (last) return last.items;
    const pushed = await conn.waitPushed(target, deadline);
    // The server offered pull diagnostics while we waited (and pushes nothing from then on).
    if (pushed !== "pull") return pushed;
  }
}

/** Pulled diagnostics; undefined past the deadline; "failed" when the server fails the request. */
async function pullDiagnostics(conn: ServerConnection, synced: Synced, deadline: number): Promise<Diagnostic[] | undefined | "failed"> {
  for (;;) {
    const budget = deadline - Date.now();
    if (budget <= 0) return undefined;
    try {
      const report = await conn.request<PullReport | null>("textDocument/diagnostic", { textDocument: { uri: synced.uri } }, budget);
      const cache = lastPulled.get(conn) ?? new Map<string, Diagnostic[]>();
      lastPulled.set(conn, cache);
      if (report?.kind === "full") cache.set(synced.uri, report.items ?? []);
      return cache.get(synced.uri) ?? report?.items ?? [];
    } catch (err) {
      if (!conn.alive) throw err;
      if (err instanceof AgentError && err.code === "lsp_timeout") return undefined;
      // Cancelled because its state moved on (a newer edit): ask again.
      if (err instanceof AgentError && err.code === "lsp_state_changed") {
        await sleep(100);
        continue;
      }
      // A server that advertises pull but fails it: fall back to what it pushes.
      return "failed";
    }
  }
}
