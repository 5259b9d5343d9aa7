// The Ast gRPC service: Search and Rewrite run the engine; ApplyEdits checks each file against the
// hash it was staged with and writes them all through the workspace writer, or writes none.
import type { AstMatch, AstServer } from "@enclave/proto/gen/enclave/agent/v1/ast.js";
import { AgentError } from "../errors.js";
import type { WorkspacePaths } from "../fs/workspace-paths.js";
import type { FileChange, WorkspaceWriter } from "../fs/workspace-writer.js";
import { unary } from "../grpc/unary.js";
import { LIMITS } from "../limits.js";
import { type AstEngine, sha256 } from "./ast-engine.js";

const MATCH_TEXT_CHARS = 4000;

function clip(s: string): string {
  return s.length > MATCH_TEXT_CHARS ? `${s.slice(0, MATCH_TEXT_CHARS)}…` : s;
}

export function astService(paths: WorkspacePaths, engine: AstEngine, writer: WorkspaceWriter): AstServer {
  return {
    search: unary(async (req) => {
      const r = await engine.search({ pattern: req.pattern, path: req.path, language: req.language, maxResults: req.maxResults });
      return {
        language: r.language,
        context: r.context,
        fillers: r.fillers,
        matches: r.matches.map((m): AstMatch => ({
          path: m.path,
          startLine: m.match.startRow + 1,
          endLine: m.match.endRow + 1,
          startColumn: m.match.startColumn,
          endColumn: m.match.endColumn,
          text: clip(m.text),
          bindings: [...m.match.bindings].map(([name, cap]) => ({ name, text: clip(cap.text) })),
        })),
        truncated: r.truncated,
        filesSearched: r.filesSearched,
        skipped: r.skipped,
      };
    }),

    rewrite: unary(async (req) => {
      const r = await engine.rewrite({ pattern: req.pattern, rewrite: req.rewrite, path: req.path, language: req.language });
      return {
        language: r.language,
        context: r.context,
        fillers: r.fillers,
        filesSearched: r.filesSearched,
        files: r.files.map((f) => ({
          path: f.path,
          sha256: f.sha256,
          newContent: Buffer.from(f.after, "utf8"),
          replacements: f.replacements,
          diff: engine.diff(f),
          parseError: f.parseError,
        })),
      };
    }),

    // In the workspace's turn, hash checks included: two interleaved applies could each pass theirs.
    applyEdits: unary((req) =>
      writer.change(async (commit) => {
        if (req.files.length === 0) throw new AgentError("invalid_argument", "no files to apply");
        const diverged: string[] = [];
        const files: FileChange[] = [];
        for (const w of req.files) {
          const { rel } = paths.resolve(w.path, "write");
          if (w.content.length > LIMITS.writeMaxBytes)
            throw new AgentError("too_large", `the new content of \`${rel}\` is over ${LIMITS.writeMaxBytes} bytes; nothing was written`);
          let current: Buffer | undefined;
          try {
            current = (await paths.readFile(rel, "read")).content;
          } catch {
            current = undefined;
          }
          if (!current || sha256(current) !== w.expectedSha256) diverged.push(rel);
          files.push({ path: rel, rel, content: Buffer.from(w.content) });
        }
        if (diverged.length) return { applied: false, diverged, filesWritten: 0 };
        await commit(files);
        return { applied: true, diverged: [], filesWritten: files.length };
      }),
    ),
  };
}
