// Keeps a server's copy of a file equal to the disk, and gets diagnostics newer than the last edit:
// pulled (textDocument/diagnostic) when the server offers it, otherwise the first push carrying the
// edit's version (or arriving after it), debounced.
import { promises as fsp } from "node:fs";
import { pathToFileURL } from "node:url";
import { asAgentError } from "../errors.js";
import type { Diagnostic } from "./lsp-types.js";
import type { ServerConnection } from "./server-connection.js";

export interface Synced {
  uri: string;
  text: string;
  version: number;
  changed: boolean;
  syncedAt: number;
}

export function uriOf(abs: string): string {
  return pathToFileURL(abs).href;
}

export async function readText(abs: string, rel: string): Promise<string> {
  try {
    return await fsp.readFile(abs, "utf8");
  } catch (err) {
    throw asAgentError(err, rel);
  }
}

export function syncText(conn: ServerConnection, abs: string, languageId: string, text: string, save: boolean): Synced {
  const uri = uriOf(abs);
  const syncedAt = Date.now();
  const { version, changed } = conn.syncDocument(uri, languageId, text, save);
  return { uri, text, version, changed, syncedAt };
}

interface PullReport {
  kind: "full" | "unchanged";
  items?: Diagnostic[];
}

const lastPulled = new WeakMap<ServerConnection, Map<string, Diagnostic[]>>();

/** Fresh diagnostics for a synced document, or undefined when none came before the deadline. */
export async function freshDiagnostics(conn: ServerConnection, synced: Synced, deadline: number): Promise<Diagnostic[] | undefined> {
  if (conn.supportsPullDiagnostics) {
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
      // A server that advertises pull but fails it: fall back to what it pushes.
    }
  }
  // An unchanged document gets no new push: its last one is current.
  if (!synced.changed && conn.lastPushed(synced.uri)) return conn.lastPushed(synced.uri)?.items;
  return conn.waitPushed(synced.uri, synced.version, synced.syncedAt, deadline);
}
