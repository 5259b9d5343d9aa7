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

export function searchPath(): string[] {
  return (process.env.PATH ?? "").split(delimiter).filter(Boolean);
}

export function resolveBinary(name: string, projectRoot?: string): string | undefined {
  if (isAbsolute(name)) return isExecutable(name) ? name : undefined;
  const dirs = [...(projectRoot ? PROJECT_BIN_DIRS.map((d) => join(projectRoot, d)) : []), ...searchPath()];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}
