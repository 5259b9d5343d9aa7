// The files a directory search covers: those of the chosen language, found by walking the folder,
// honouring every .gitignore on the way (and .git/info/exclude), and skipping vendored folders,
// binary files (a NUL byte near the start) and files over the size limit.
import { promises as fsp } from "node:fs";
import { join } from "node:path";
import { LIMITS } from "../limits.js";
import type { WorkspacePaths } from "../fs/workspace-paths.js";
import { type IgnoreRule, isIgnored, parseGitignore } from "./gitignore.js";

/** Folders that hold someone else's code or generated output, never searched by a directory walk. */
export const VENDORED_DIRS = new Set([
  ".git", ".hg", ".svn", ".enclave", "node_modules", "bower_components", "jspm_packages", "vendor", "third_party",
  "third-party", ".venv", "venv", "__pycache__", "site-packages", ".tox", ".mypy_cache", ".dart_tool", ".pub-cache",
  ".gradle", ".idea", ".cache",
]);

export interface SourceFile {
  abs: string;
  rel: string;
}

export interface WalkResult {
  files: SourceFile[];
  skipped: { vendored: number; ignored: number; binary: number; tooLarge: number; hardLinked: number };
}

async function readRules(abs: string, base: string, name: string): Promise<IgnoreRule[]> {
  try {
    return parseGitignore(await fsp.readFile(join(abs, name), "utf8"), base);
  } catch {
    return [];
  }
}

export async function looksBinary(abs: string): Promise<boolean> {
  const h = await fsp.open(abs, "r");
  try {
    const buf = Buffer.alloc(8192);
    const { bytesRead } = await h.read(buf, 0, buf.length, 0);
    return buf.subarray(0, bytesRead).includes(0);
  } finally {
    await h.close();
  }
}

export async function walkSources(paths: WorkspacePaths, startRel: string, extensions: readonly string[]): Promise<WalkResult> {
  const result: WalkResult = { files: [], skipped: { vendored: 0, ignored: 0, binary: 0, tooLarge: 0, hardLinked: 0 } };
  // Rules of the .gitignore files between the workspace root and the start folder apply too.
  let rules: IgnoreRule[] = [...(await readRules(join(paths.root, ".git", "info"), "", "exclude")), ...(await readRules(paths.root, "", ".gitignore"))];
  const parts = startRel === "." ? [] : startRel.split("/");
  for (let i = 1; i <= parts.length - 1; i++) {
    const base = parts.slice(0, i).join("/");
    rules = [...rules, ...(await readRules(join(paths.root, base), base, ".gitignore"))];
  }
  const visit = async (rel: string, inherited: IgnoreRule[]): Promise<void> => {
    const abs = rel === "." ? paths.root : join(paths.root, rel);
    const here = rel === "." ? inherited : [...inherited, ...(await readRules(abs, rel, ".gitignore"))];
    let entries;
    try {
      entries = await fsp.readdir(abs, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const childRel = rel === "." ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (VENDORED_DIRS.has(e.name)) {
          result.skipped.vendored++;
          continue;
        }
        if (isIgnored(here, childRel, true)) {
          result.skipped.ignored++;
          continue;
        }
        await visit(childRel, here);
      } else if (e.isFile()) {
        const lower = e.name.toLowerCase();
        if (!extensions.some((x) => lower.endsWith(x))) continue;
        if (isIgnored(here, childRel, false)) {
          result.skipped.ignored++;
          continue;
        }
        const full = join(abs, e.name);
        const st = await fsp.lstat(full);
        // As the path resolver does for reads: a hard link may share its inode with a file outside.
        if (st.nlink > 1) {
          result.skipped.hardLinked++;
          continue;
        }
        if (st.size > LIMITS.astMaxFileBytes) {
          result.skipped.tooLarge++;
          continue;
        }
        if (await looksBinary(full)) {
          result.skipped.binary++;
          continue;
        }
        result.files.push({ abs: full, rel: childRel });
      }
      // Symbolic links are not followed: they may lead outside the workspace.
    }
  };
  await visit(startRel, rules);
  return result;
}
