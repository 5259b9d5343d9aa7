// The files a directory search covers: those of the chosen language, found by walking the folder,
// honouring every .gitignore on the way (and .git/info/exclude), and skipping vendored folders,
// binary files (a NUL byte near the start) and files over the size limit.
import { join } from "node:path";
import { LIMITS } from "../limits.js";
import type { WorkspaceDir, WorkspacePaths } from "../fs/workspace-paths.js";
import { type IgnoreRule, isIgnored, parseGitignore } from "./gitignore.js";

/** Folders that hold someone else's code or generated output, never searched by a directory walk. */
export const VENDORED_DIRS = new Set([
  ".git",
  ".hg",
  ".svn",
  ".enclave",
  "node_modules",
  "bower_components",
  "jspm_packages",
  "vendor",
  "third_party",
  "third-party",
  ".venv",
  "venv",
  "__pycache__",
  "site-packages",
  ".tox",
  ".mypy_cache",
  ".dart_tool",
  ".pub-cache",
  ".gradle",
  ".idea",
  ".cache",
]);

export interface SourceFile {
  abs: string;
  rel: string;
  /** Bytes, when the walk was made. */
  size: number;
}

export interface WalkResult {
  files: SourceFile[];
  skipped: { vendored: number; ignored: number; binary: number; tooLarge: number; hardLinked: number };
}

/** An ignore file's rules; none when it is missing, unreadable or not a plain file. */
async function readRules(paths: WorkspacePaths, file: string, base: string): Promise<IgnoreRule[]> {
  try {
    return parseGitignore((await paths.readFile(file, "read")).content.toString("utf8"), base);
  } catch {
    return [];
  }
}

/** The rules of an open folder's own .gitignore. */
async function rulesIn(dir: WorkspaceDir, base: string): Promise<IgnoreRule[]> {
  try {
    const f = await dir.openFile(".gitignore", "read");
    try {
      return parseGitignore((await f.handle.readFile()).toString("utf8"), base);
    } finally {
      await f.handle.close();
    }
  } catch {
    return [];
  }
}

/** Whether a file of an open folder looks binary (a NUL byte near the start); unreadable counts as binary. */
async function looksBinary(dir: WorkspaceDir, name: string): Promise<boolean> {
  let f;
  try {
    f = await dir.openFile(name, "read");
  } catch {
    return true;
  }
  try {
    const buf = Buffer.alloc(8192);
    const { bytesRead } = await f.handle.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead).includes(0);
  } finally {
    await f.handle.close();
  }
}

export async function walkSources(paths: WorkspacePaths, startRel: string, extensions: readonly string[]): Promise<WalkResult> {
  const result: WalkResult = { files: [], skipped: { vendored: 0, ignored: 0, binary: 0, tooLarge: 0, hardLinked: 0 } };
  // Rules of the .gitignore files between the workspace root and the start folder apply too.
  let rules: IgnoreRule[] = [...(await readRules(paths, ".git/info/exclude", "")), ...(await readRules(paths, ".gitignore", ""))];
  const parts = startRel === "." ? [] : startRel.split("/");
  for (let i = 1; i <= parts.length - 1; i++) {
    const base = parts.slice(0, i).join("/");
    rules = [...rules, ...(await readRules(paths, `${base}/.gitignore`, base))];
  }
  // Every folder is opened from its parent's handle and never through a link, so the walk cannot
  // be led out of the workspace however the tree changes while it runs.
  const visit = async (dir: WorkspaceDir, inherited: IgnoreRule[]): Promise<void> => {
    const rel = dir.rel;
    const here = rel === "." ? inherited : [...inherited, ...(await rulesIn(dir, rel))];
    let entries;
    try {
      entries = await dir.readEntries();
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const childRel = dir.relOf(e.name);
      if (e.isDirectory()) {
        if (VENDORED_DIRS.has(e.name)) {
          result.skipped.vendored++;
          continue;
        }
        if (isIgnored(here, childRel, true)) {
          result.skipped.ignored++;
          continue;
        }
        let child: WorkspaceDir;
        try {
          child = dir.openDir(e.name);
        } catch {
          continue;
        }
        try {
          await visit(child, here);
        } finally {
          child.close();
        }
      } else if (e.isFile()) {
        const lower = e.name.toLowerCase();
        if (!extensions.some((x) => lower.endsWith(x))) continue;
        if (isIgnored(here, childRel, false)) {
          result.skipped.ignored++;
          continue;
        }
        const st = await dir.lstatAsync(e.name);
        if (!st?.isFile()) continue;
        // As the path resolver does for reads: a hard link may share its inode with a file outside.
        if (st.nlink > 1) {
          result.skipped.hardLinked++;
          continue;
        }
        if (st.size > LIMITS.astMaxFileBytes) {
          result.skipped.tooLarge++;
          continue;
        }
        if (await looksBinary(dir, e.name)) {
          result.skipped.binary++;
          continue;
        }
        result.files.push({ abs: join(paths.root, childRel), rel: childRel, size: st.size });
      }
      // Symbolic links are not followed: they may lead outside the workspace.
    }
  };
  const start = paths.openDir(startRel);
  try {
    await visit(start, rules);
  } finally {
    start.close();
  }
  return result;
}
