// The Files service: read, write, edit by exact replacement, apply a unified diff, list, stat.
// Paths go through WorkspacePaths; every change goes through the workspace writer, so a write is
// never left half-done and a patch's files change all together or not at all, a crash included.
import type { Stats } from "node:fs";
import type { FilesServer } from "@enclave/proto/gen/enclave/agent/v1/files.js";
import type { DirEntry, PatchedFile } from "@enclave/proto/gen/enclave/agent/v1/files.js";
import { AgentError } from "../errors.js";
import { unary } from "../grpc/unary.js";
import { LIMITS } from "../limits.js";
import { applyHunks, PatchError, parseUnifiedDiff } from "@enclave/proto/unified-diff.js";
import type { WorkspaceDir, WorkspacePaths } from "./workspace-paths.js";
import type { FileChange, WorkspaceWriter } from "./workspace-writer.js";

function entryType(st: Stats): string {
  if (st.isFile()) return "file";
  if (st.isDirectory()) return "directory";
  if (st.isSymbolicLink()) return "symlink";
  return "other";
}

/** A file's whole content for an edit, refused over the edit size limit. */
async function readForEdit(paths: WorkspacePaths, path: string): Promise<{ content: Buffer; rel: string }> {
  const f = await paths.openFile(path, "read");
  try {
    if (f.st.size > LIMITS.writeMaxBytes) {
      throw new AgentError("too_large", `\`${f.rel}\` is ${f.st.size} bytes, over the ${LIMITS.writeMaxBytes}-byte limit for edits`);
    }
    return { content: await f.handle.readFile(), rel: f.rel };
  } finally {
    await f.handle.close();
  }
}

function checkWriteSize(size: number, shown: string): void {
  if (size > LIMITS.writeMaxBytes) {
    throw new AgentError("too_large", `the new content of \`${shown}\` is ${size} bytes, over the ${LIMITS.writeMaxBytes}-byte limit; nothing was written`);
  }
}

function countOccurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) count++;
  return count;
}

export function filesService(paths: WorkspacePaths, writer: WorkspaceWriter): FilesServer {
  return {
    readFile: unary(async (req) => {
      const cap = Math.min(req.maxBytes > 0 ? req.maxBytes : LIMITS.readDefaultBytes, LIMITS.readMaxBytes);
      const { content, size } = await paths.readHead(req.path, "read", cap);
      return { content, size, truncated: size > content.length };
    }),

    writeFile: unary(async (req) =>
      writer.change(async (commit) => {
        const { rel } = paths.resolve(req.path, "write");
        checkWriteSize(req.content.length, rel);
        const existing = paths.statIfExists(req.path, "write");
        if (existing?.st.isDirectory()) throw new AgentError("invalid_argument", `\`${rel}\` is a directory`);
        if (existing && req.createOnly) throw new AgentError("already_exists", `\`${rel}\` already exists; nothing was written`);
        await commit([{ path: req.path, rel, content: req.content }]);
        return { bytesWritten: req.content.length, created: !existing };
      }),
    ),

    editFile: unary(async (req) =>
      writer.change(async (commit) => {
        if (req.oldText === "") throw new AgentError("invalid_argument", "old_text is empty: give the exact text to replace");
        if (req.oldText === req.newText) throw new AgentError("invalid_argument", "old_text and new_text are the same; nothing to do");
        const read = await readForEdit(paths, req.path);
        const rel = read.rel;
        const text = read.content.toString("utf8");
        const count = countOccurrences(text, req.oldText);
        if (count === 0) {
          throw new AgentError(
            "failed_precondition",
            `old_text was not found in \`${rel}\`; read the file again and copy the text exactly (whitespace included)`,
          );
        }
        if (count > 1 && !req.replaceAll) {
          throw new AgentError(
            "failed_precondition",
            `old_text occurs ${count} times in \`${rel}\`; add surrounding lines to make it unique, or set replace_all`,
          );
        }
        const next = req.replaceAll ? text.split(req.oldText).join(req.newText) : text.replace(req.oldText, () => req.newText);
        const content = Buffer.from(next, "utf8");
        checkWriteSize(content.length, rel);
        await commit([{ path: rel, rel, content }]);
        return { replacements: req.replaceAll ? count : 1 };
      }),
    ),

    applyPatch: unary(async (req) =>
      writer.change(async (commit) => {
        if (req.patch.length > LIMITS.patchMaxBytes) {
          throw new AgentError("too_large", `the patch is ${req.patch.length} bytes, over the ${LIMITS.patchMaxBytes}-byte limit`);
        }
        let patches;
        try {
          patches = parseUnifiedDiff(req.patch);
        } catch (err) {
          if (err instanceof PatchError) throw new AgentError("invalid_argument", err.message);
          throw err;
        }
        // Compute every file's new content before writing any: one failing hunk changes nothing.
        const changes: FileChange[] = [];
        const report: PatchedFile[] = [];
        const seen = new Set<string>();
        for (const p of patches) {
          const target = p.newPath ?? p.oldPath;
          if (target === null) throw new AgentError("invalid_argument", "a file patch names /dev/null on both sides");
          if (p.binary)
            throw new AgentError("invalid_argument", `the patch changes \`${target}\` as a binary file, which a diff cannot carry; write that file instead`);
          const moves = p.oldPath !== null && p.newPath !== null && p.oldPath !== p.newPath;
          if (moves && !p.rename && !p.copy) {
            throw new AgentError(
              "invalid_argument",
              `the file section \`--- ${p.oldPath}\` / \`+++ ${p.newPath}\` names two files without git's \`rename from\`/\`copy from\` lines; give one path on both sides`,
            );
          }
          const { rel } = paths.resolve(target, p.oldPath === null || moves ? "write" : "read");
          const claim = (r: string): void => {
            if (seen.has(r)) throw new AgentError("invalid_argument", `the patch changes \`${r}\` twice; merge its hunks into one file section`);
            seen.add(r);
          };
          claim(rel);
          try {
            if (moves && p.oldPath !== null) {
              // A rename or copy: the new file is the old one's content with the hunks applied.
              const from = paths.resolve(p.oldPath, p.rename ? "write" : "read").rel;
              if (p.rename) claim(from);
              if (paths.statIfExists(target, "write"))
                throw new AgentError(
                  "already_exists",
                  `the patch ${p.rename ? "renames" : "copies"} \`${from}\` to \`${rel}\`, which already exists; nothing was changed`,
                );
              const content = Buffer.from(applyHunks((await readForEdit(paths, p.oldPath)).content.toString("utf8"), p.hunks, rel), "utf8");
              checkWriteSize(content.length, rel);
              if (p.rename) changes.push({ path: p.oldPath, rel: from, content: null });
              changes.push({ path: target, rel, content });
              if (p.rename) report.push({ path: from, change: "deleted", hunks: 0 });
              report.push({ path: rel, change: "added", hunks: p.hunks.length });
            } else if (p.oldPath === null) {
              if (paths.statIfExists(target, "write"))
                throw new AgentError("already_exists", `the patch creates \`${rel}\`, which already exists; nothing was changed`);
              const content = Buffer.from(applyHunks("", p.hunks, rel), "utf8");
              checkWriteSize(content.length, rel);
              changes.push({ path: target, rel, content });
              report.push({ path: rel, change: "added", hunks: p.hunks.length });
            } else {
              const old = (await readForEdit(paths, target)).content.toString("utf8");
              const next = applyHunks(old, p.hunks, rel);
              if (p.newPath === null) {
                if (next !== "")
                  throw new AgentError("failed_precondition", `the patch deletes \`${rel}\` but its removed lines are not the whole file; nothing was changed`);
                changes.push({ path: target, rel, content: null });
                report.push({ path: rel, change: "deleted", hunks: p.hunks.length });
              } else {
                const content = Buffer.from(next, "utf8");
                checkWriteSize(content.length, rel);
                changes.push({ path: target, rel, content });
                report.push({ path: rel, change: "modified", hunks: p.hunks.length });
              }
            }
          } catch (err) {
            if (err instanceof PatchError) throw new AgentError("failed_precondition", `${err.message}; nothing was changed`);
            throw err;
          }
        }
        await commit(changes);
        return { files: report };
      }),
    ),

    listDir: unary(async (req) => {
      const top = paths.openDir(req.path);
      const max = Math.min(req.maxEntries > 0 ? req.maxEntries : LIMITS.listDefaultEntries, LIMITS.listMaxEntries);
      const entries: DirEntry[] = [];
      let truncated = false;
      const walk = async (dir: WorkspaceDir): Promise<void> => {
        const names = (await dir.readNames()).sort();
        for (const name of names) {
          if (entries.length >= max) {
            truncated = true;
            return;
          }
          const cst = await dir.lstatAsync(name);
          if (!cst) continue;
          entries.push({ path: dir.relOf(name), type: entryType(cst), size: cst.isFile() ? cst.size : 0 });
          // Never descend through a link: it may lead out of the workspace (and opening the folder
          // refuses one put there since).
          if (req.recursive && cst.isDirectory() && name !== ".git" && name !== "node_modules") {
            let child: WorkspaceDir;
            try {
              child = dir.openDir(name);
            } catch {
              continue;
            }
            try {
              await walk(child);
            } finally {
              child.close();
            }
          }
        }
      };
      try {
        await walk(top);
      } finally {
        top.close();
      }
      return { entries, truncated };
    }),

    stat: unary(async (req) => {
      const { st, rel } = paths.stat(req.path, "list");
      return { path: rel, type: entryType(st), size: st.size, mode: st.mode & 0o7777, mtimeMs: Math.round(st.mtimeMs) };
    }),
  };
}
