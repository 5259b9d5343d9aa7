// Finds an executable the way a shell would, with project-local folders (node_modules/.bin, .venv/bin,
// venv/bin) searched before PATH when a project root is given.
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";

export const PROJECT_BIN_DIRS = ["node_modules/.bin", ".venv/bin", "venv/bin"] as const;

function isExecutable(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * PATH's folders. Relative entries ("", ".", "bin") are dropped: they would resolve against the
 * agent's working folder, which may be the workspace, and a workspace file is not a host tool.
 */
export function searchPath(): string[] {
  return (process.env.PATH ?? "").split(delimiter).filter((d) => d && isAbsolute(d));
}

export interface FoundBinary {
  path: string;
  /**
   * Found in the project's own folders (node_modules/.bin, .venv/bin, venv/bin): written by whoever
   * writes the workspace, so it runs only for a real call, never to describe or probe.
   */
  projectLocal: boolean;
}

export function findBinary(name: string, projectRoot?: string): FoundBinary | undefined {
  if (isAbsolute(name)) return isExecutable(name) ? { path: name, projectLocal: false } : undefined;
  for (const dir of projectRoot ? PROJECT_BIN_DIRS.map((d) => join(projectRoot, d)) : []) {
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return { path: candidate, projectLocal: true };
  }
  for (const dir of searchPath()) {
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return { path: candidate, projectLocal: false };
  }
  return undefined;
}

export function resolveBinary(name: string, projectRoot?: string): string | undefined {
  return findBinary(name, projectRoot)?.path;
}

/** How a description marks a project's own binary, which it names but never runs. */
export const PROJECT_LOCAL_NOTE = "project-local, not run to check it";

/** The path, marked when it is the project's own. */
export function describeBinary(found: FoundBinary): string {
  return found.projectLocal ? `${found.path} (${PROJECT_LOCAL_NOTE})` : found.path;
}
