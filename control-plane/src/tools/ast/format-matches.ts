// How ast_grep shows its matches to a model: a header (which says how the pattern was read), then
// each match as `path:line:column` (`path:line:column-line:column` when it spans lines), its source
// indented, and its bindings.
import type { AstSearchResponse } from "@enclave/proto/gen/enclave/agent/v1/ast.js";
import { plural } from "../../text/wording.js";

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n");
}

/** "a statement", "an expression, with `;` supplied after `$$$B`". */
export function readingOf(context: string, fillers: readonly string[]): string {
  const what = `${/^[aeiou]/.test(context) ? "an" : "a"} ${context}`;
  return fillers.length ? `${what}, with ${fillers.join(" and ")}` : what;
}

export function formatMatches(pattern: string, r: AstSearchResponse, maxResults: number): string {
  const files = new Set(r.matches.map((m) => m.path)).size;
  const sk = r.skipped;
  const skipped = sk
    ? [
        sk.vendored ? plural(sk.vendored, "vendored folder") : "",
        sk.ignored ? `${sk.ignored} .gitignored` : "",
        sk.binary ? plural(sk.binary, "binary file") : "",
        sk.tooLarge ? plural(sk.tooLarge, "file") + " over the size limit" : "",
        sk.hardLinked ? plural(sk.hardLinked, "hard-linked file") : "",
      ].filter(Boolean)
    : [];
  const where =
    `${plural(r.filesSearched, `${r.language} file`)} searched` +
    (skipped.length ? ` (skipped: ${skipped.join(", ")})` : "") +
    `; pattern read as ${readingOf(r.context, r.fillers)}`;
  if (r.matches.length === 0) return `No matches for \`${pattern}\` (${where}).`;
  const lines = [`${plural(r.matches.length, "match", "matches")} in ${plural(files, "file")} (${where}):`];
  for (const m of r.matches) {
    lines.push("", `${m.path}:${m.startLine}:${m.startColumn}${m.startLine === m.endLine ? "" : `-${m.endLine}:${m.endColumn}`}`, indent(m.text));
    for (const b of m.bindings) lines.push(`  $${b.name} = ${b.text.includes("\n") ? JSON.stringify(b.text) : b.text}`);
  }
  if (r.truncated) lines.push("", `[the list stops at max_results=${maxResults}; more matches exist: raise max_results or narrow path]`);
  return lines.join("\n");
}
