// Where a workspace-wide symbol search goes when no file says which server to ask: one file of each
// (server, root) whose root marker is in the workspace and whose binary resolves, so the servers for
// them can be started and searched together. Files are found by a bounded walk that follows no
// symbolic link and skips dependency and build folders.
import { type Dirent, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { LIMITS } from "../limits.js";
import { checkServerBinary } from "./server-binary.js";
import { LANGUAGE_SERVERS, type LanguageServerSpec } from "@enclave/proto/server-registry.js";
import { markerFolders, SKIPPED_FOLDERS } from "../fs/project-roots.js";

/** A workspace file under `rootAbs` with one of the server's extensions (breadth first), if any. */
function sampleFile(spec: LanguageServerSpec, rootAbs: string, workspaceRoot: string): string | undefined {
  let level = [rootAbs];
  let seen = 0;
  for (let depth = 0; depth <= LIMITS.lspSearchSampleDepth && level.length; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      let entries: Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      entries.sort((a, b) => a.name.localeCompare(b.name));
      for (const e of entries) {
        if (++seen > LIMITS.lspSearchSampleEntries) return undefined;
        // Dirent types come from lstat: a symbolic link is neither a file nor a folder here.
        if (e.isFile() && spec.extensions.some((x) => e.name.toLowerCase().endsWith(x))) return relative(workspaceRoot, join(dir, e.name));
        if (e.isDirectory() && !e.name.startsWith(".") && !SKIPPED_FOLDERS.has(e.name)) next.push(join(dir, e.name));
      }
    }
    level = next;
  }
  return undefined;
}

export interface SearchTarget {
  serverId: string;
  /** Workspace-relative. */
  root: string;
  /** A workspace-relative file the server opens, so it knows its project. */
  file: string;
}

/** Searchable (server, root) pairs, at most LIMITS.lspSearchMaxServers; and why others were left out. */
export function searchTargets(workspaceRoot: string): { targets: SearchTarget[]; skipped: string[] } {
  const targets: SearchTarget[] = [];
  const skipped: string[] = [];
  for (const spec of LANGUAGE_SERVERS) {
    for (const rootAbs of markerFolders(spec.rootMarkers, workspaceRoot, 2)) {
      const root = relative(workspaceRoot, rootAbs) || ".";
      if (!checkServerBinary(spec, rootAbs).ok) continue;
      const file = sampleFile(spec, rootAbs, workspaceRoot);
      if (!file) continue;
      if (targets.length >= LIMITS.lspSearchMaxServers) {
        skipped.push(`${spec.id}@${root}`);
        continue;
      }
      targets.push({ serverId: spec.id, root, file });
    }
  }
  return { targets, skipped };
}
