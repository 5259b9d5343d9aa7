// Fills a rewrite template with a match's bindings: `$NAME` and `$$$NAME` become the captured source
// text (a run keeps its separators, since it is the source from its first node to its last). Lines
// after the first are indented like the line the match starts on.
import type { Bindings } from "./matcher.js";

const TEMPLATE_VAR = /\$\$\$([A-Z_][A-Z0-9_]*)|\$([A-Z_][A-Z0-9_]*)/g;

export function templateNames(template: string): string[] {
  const out = new Set<string>();
  for (const m of template.matchAll(TEMPLATE_VAR)) {
    const name = m[1] ?? m[2];
    if (name && name !== "_") out.add(name);
  }
  return [...out];
}

export function fillTemplate(template: string, bindings: Bindings, indent: string): string {
  const filled = template.replace(TEMPLATE_VAR, (whole, multi: string | undefined, single: string | undefined) => {
    const name = multi ?? single ?? "";
    const cap = bindings.get(name);
    return cap ? cap.text : whole;
  });
  return indent ? filled.replace(/\n(?=[^\n])/g, `\n${indent}`) : filled;
}

/** The whitespace that starts the line containing `offset`. */
export function indentAt(source: string, offset: number): string {
  const lineStart = source.lastIndexOf("\n", offset - 1) + 1;
  const m = /^[ \t]*/.exec(source.slice(lineStart, offset));
  return m ? m[0] : "";
}
