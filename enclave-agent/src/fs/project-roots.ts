// Where a project starts, for every tool that asks (a language server's root, a debug launch's
// working folder, the Python a project means): the nearest folder holding one of the tool's root
// markers, from the code's own folder up to the workspace root; never above the workspace.
import { existsSync, readdirSync } from "node:fs";
import { dirname, join, sep } from "node:path";

/** Folders never searched for markers below the root: dependencies, environments, build output. */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(["node_modules", ".git", ".venv", "venv", "__pycache__", "dist", "build", "target", ".cache"]);
/** Sub-folders looked into per folder, at most (a huge monorepo level is sampled, not walked). */
const FOLDERS_PER_LEVEL = 200;

/** The folders from `start` up to the workspace root, nearest first. */
export function foldersUp(workspaceRoot: string, start: string): string[] {
  const out: string[] = [];
  let dir = start;
  for (;;) {
    out.push(dir);
    if (dir === workspaceRoot || !dir.startsWith(workspaceRoot + sep)) break;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return out;
}

/** The markers present in `dir`, as absolute paths, in the order the markers are listed. */
export function markersIn(dir: string, markers: readonly string[]): string[] {
  return markers.map((m) => join(dir, m)).filter((p) => existsSync(p));
}

/** The markers found from `start` up to the workspace root, nearest folder first. */
export function markersUp(markers: readonly string[], start: string, workspaceRoot: string): string[] {
  return foldersUp(workspaceRoot, start).flatMap((dir) => markersIn(dir, markers));
}

/** The nearest folder with a marker, from `start` up to (and including) the workspace root. */
export function nearestRoot(markers: readonly string[], start: string, workspaceRoot: string): string | undefined {
  return foldersUp(workspaceRoot, start).find((dir) => markersIn(dir, markers).length > 0);
}

/** Folders (the root and down to `depth` levels below it) that hold a marker, for overviews. */
export function markerFolders(markers: readonly string[], workspaceRoot: string, depth: number): string[] {
  const out: string[] = [];
  const walk = (dir: string, level: number): void => {
    if (markersIn(dir, markers).length > 0) out.push(dir);
    if (level >= depth) return;
    let names: string[];
    try {
      names = readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && !d.name.startsWith(".") && !SKIPPED_FOLDERS.has(d.name))
        .map((d) => d.name);
    } catch {
      return;
    }
    for (const name of names.sort().slice(0, FOLDERS_PER_LEVEL)) walk(join(dir, name), level + 1);
  };
  walk(workspaceRoot, 0);
  return out;
}
