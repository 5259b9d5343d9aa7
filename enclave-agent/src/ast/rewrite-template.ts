// Fills a rewrite template with a match's bindings: `$NAME` and `$$$NAME` become the captured source
// text (a run keeps its separators and comments, since it is the source from its first node to its
// last). Indentation is applied exactly once at each level: a multi-line capture's later lines lose
// the indentation of the line the capture started on and take that of the template line it lands
// on; then the filled template's later lines take the indentation of the line the match starts on.
// (Python's blocks depend on it: `for $K in $D.keys():\n    $$$BODY` must keep the body's lines at
// one depth.)
import type { Bindings, Capture } from "./matcher.js";

const TEMPLATE_VAR = /\$\$\$([A-Z_][A-Z0-9_]*)|\$([A-Z_][A-Z0-9_]*)/g;

export function templateNames(template: string): string[] {
  const out = new Set<string>();
  for (const m of template.matchAll(TEMPLATE_VAR)) {
    const name = m[1] ?? m[2];
    if (name && !name.startsWith("_")) out.add(name);
  }
  return [...out];
}

/** Adds `indent` to every non-empty line after the first. */
function indentFollowing(text: string, indent: string): string {
  return indent ? text.replace(/\n(?=[^\n])/g, `\n${indent}`) : text;
}

/** Removes `indent` (or as much of it as a line has) from every line after the first. */
function dedentFollowing(text: string, indent: string): string {
  if (!indent || !text.includes("\n")) return text;
  return text
    .split("\n")
    .map((line, i) => {
      if (i === 0) return line;
      let k = 0;
      while (k < indent.length && k < line.length && line[k] === indent[k]) k++;
      return line.slice(k);
    })
    .join("\n");
}

/** The capture's text with its later lines made relative to the line it starts on. */
function relativeText(cap: Capture, source: string): string {
  return dedentFollowing(cap.text, indentAt(source, cap.start));
}

export function fillTemplate(template: string, bindings: Bindings, source: string, matchIndent: string): string {
  const filled = template.replace(TEMPLATE_VAR, (whole: string, multi: string | undefined, single: string | undefined, offset: number) => {
    const name = multi ?? single ?? "";
    const cap = bindings.get(name);
    if (!cap) return whole;
    return indentFollowing(relativeText(cap, source), indentAt(template, offset));
  });
  return indentFollowing(filled, matchIndent);
}

/** The whitespace that starts the line containing `offset`. */
export function indentAt(source: string, offset: number): string {
  const lineStart = source.lastIndexOf("\n", offset - 1) + 1;
  const m = /^[ \t]*/.exec(source.slice(lineStart, offset));
  return m ? m[0] : "";
}
