// Turns LSP locations (file URIs, UTF-16 ranges) into what the tools show: workspace-relative paths,
// 1-based lines and code-point columns, and the text of the line. Files outside the workspace (a
// library's declaration) are named by absolute path and never read: the agent touches nothing there.
import { fileURLToPath } from "node:url";
import type { LspLocation } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import type { WorkspacePaths } from "../fs/workspace-paths.js";
import type { Range } from "./lsp-types.js";
import { displayColumn, splitLines } from "./text-positions.js";

export class SourceLines {
  private readonly cache = new Map<string, readonly string[] | undefined>();
  /** URIs whose workspace path this query already resolved (its own file): not walked again. */
  private readonly resolved = new Map<string, string>();

  constructor(
    private readonly paths: WorkspacePaths,
    /** Text a server has open (newer than disk, in principle), by URI. */
    private readonly openText: (uri: string) => string | undefined,
  ) {}

  /** Records that `uri` is the workspace file `abs`, as WorkspacePaths.resolve found it for this query. */
  knows(uri: string, abs: string): this {
    this.resolved.set(uri, abs);
    return this;
  }

  private pathOf(uri: string): { abs: string; inside: boolean } {
    const known = this.resolved.get(uri);
    if (known !== undefined) return { abs: known, inside: true };
    const found = this.resolve(uri);
    // A location's text and its path ask for the same file: walked once per query.
    if (found.inside) this.resolved.set(uri, found.abs);
    return found;
  }

  private resolve(uri: string): { abs: string; inside: boolean } {
    let abs: string;
    try {
      abs = fileURLToPath(uri);
    } catch {
      return { abs: uri, inside: false };
    }
    try {
      return { abs: this.paths.resolve(abs, "read").abs, inside: true };
    } catch {
      return { abs, inside: false };
    }
  }

  relativePath(uri: string): string {
    const { abs, inside } = this.pathOf(uri);
    return inside ? this.paths.relative(abs) : abs;
  }

  lines(uri: string): readonly string[] | undefined {
    if (this.cache.has(uri)) return this.cache.get(uri);
    let lines: readonly string[] | undefined;
    const open = this.openText(uri);
    if (open !== undefined) lines = splitLines(open);
    else {
      const { abs, inside } = this.pathOf(uri);
      if (inside) {
        try {
          lines = splitLines(this.paths.readFileSync(abs, "read").toString("utf8"));
        } catch {
          lines = undefined;
        }
      }
    }
    this.cache.set(uri, lines);
    return lines;
  }

  location(uri: string, range: Range): LspLocation {
    const lines = this.lines(uri);
    const startText = lines?.[range.start.line] ?? "";
    const endText = lines?.[range.end.line] ?? "";
    return {
      path: this.relativePath(uri),
      line: range.start.line + 1,
      column: lines ? displayColumn(startText, range.start.character) : range.start.character + 1,
      endLine: range.end.line + 1,
      endColumn: lines ? displayColumn(endText, range.end.character) : range.end.character + 1,
      lineText: startText.length > 400 ? `${startText.slice(0, 400)}…` : startText,
    };
  }
}
