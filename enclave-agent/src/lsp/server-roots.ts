// Where a server would run for a file: the nearest folder (from the file up to the workspace root)
// holding one of its root markers. Also lists the marker folders of a workspace, for status.
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import type { LanguageServerSpec } from "./server-registry.js";

export function hasMarker(spec: LanguageServerSpec, dir: string): boolean {
  return spec.rootMarkers.some((m) => existsSync(join(dir, m)));
}

/** The nearest folder with a marker, from the file's folder up to (and including) the workspace root. */
export function findRoot(spec: LanguageServerSpec, fileAbs: string, workspaceRoot: string): string | undefined {
  let dir = dirname(fileAbs);
  for (;;) {
    if (hasMarker(spec, dir)) return dir;
    if (dir === workspaceRoot || !dir.startsWith(workspaceRoot + sep)) return undefined;
    dir = dirname(dir);
  }
}

const SKIP = new Set(["node_modules", ".git", ".venv", "venv", "__pycache__", "dist", "build", "target", ".cache"]);

/** Workspace-relative folders (down to `depth` levels) holding one of the server's markers. */
export function markerRoots(spec: LanguageServerSpec, workspaceRoot: string, depth = 2): string[] {
  const out: string[] = [];
  const walk = (dir: string, level: number): void => {
    if (hasMarker(spec, dir)) out.push(relative(workspaceRoot, dir) || ".");
    if (level >= depth) return;
    let names: string[];
    try {
      names = readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory() && !d.name.startsWith(".") && !SKIP.has(d.name)).map((d) => d.name);
    } catch {
      return;
    }
    for (const name of names.sort().slice(0, 200)) walk(join(dir, name), level + 1);
  };
  walk(workspaceRoot, 0);
  return out;
}
