// What an enclosure is expected to change in a cell's output, against host placement's output of the
// same cell: the image carries its own Python (another version, installed elsewhere) and the agent's
// files live under another prefix. A cell whose enclosure output equals host placement's once these
// are rewritten on both sides differs from the reference only as the placement does, so it is classed
// so, not counted as unexplained; any other difference stays unknown.
import type { Part } from "./eval-compare.js";
import type { Language } from "./eval-corpus.js";

export interface PlacementRule {
  id: string;
  description: string;
  rewrite(text: string, versions: { enclave: string; reference: string }, code: string): string;
}

/** APIs a cell may probe for, with the Node major that added them. */
const NODE_APIS: Record<string, number> = { "Object.groupBy": 21, "Map.groupBy": 21, "Promise.withResolvers": 22 };

const major = (v: string): number => Number(/^v?(\d+)/.exec(v)?.[1] ?? Number.NaN);

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export const PLACEMENT_RULES: PlacementRule[] = [
  {
    id: "interpreter-version",
    description: "the interpreter's version where a cell prints it, and its library folder's name (python3.11 against python3.12)",
    rewrite: (t, v) => {
      let out = t;
      for (const version of [v.enclave, v.reference])
        if (version && version !== "?") out = out.replace(new RegExp(`\\b${escapeRe(version)}\\b`, "g"), "<version>");
      return out.replace(/\bpython3\.\d+\b/g, "python3.<minor>");
    },
  },
  {
    id: "node-internals",
    description:
      "Node's own stack frames (node:internal/…, node:fs) and their line numbers, which change from one Node version to the next (the enclosure's kernel runs the agent's pinned Node)",
    rewrite: (t) =>
      t
        .replace(/^ +at (?:.* \()?node:[^)\n]*\)?( \{)?$/gm, "    at <node internals>$1")
        .replace(/(?:^ +at <node internals>\n)+(?= +at <node internals>)/gm, ""),
  },
  {
    id: "node-messages",
    description: "messages newer Node words differently: JSON.parse's error adds `(line 1 column 2)`; a Promise is shown without its async ids",
    rewrite: (t) =>
      t
        .replace(/( in JSON at position \d+) \(line \d+ column \d+\)/g, "$1")
        .replace(/Promise \{\n {2}(.+?),\n {2}\[Symbol\(async_id_symbol\)\]: …,\n {2}\[Symbol\(trigger_async_id_symbol\)\]: …\n\}/g, "Promise { $1 }"),
  },
  {
    id: "node-api",
    description: "a cell that tests for an API only the newer Node has (Object.groupBy, from Node 21)",
    rewrite: (t, v, code) => {
      const [a, b] = [major(v.enclave), major(v.reference)];
      const probed = Object.entries(NODE_APIS).some(([api, since]) => code.includes(api) && Math.min(a, b) < since && Math.max(a, b) >= since);
      return probed ? "<depends on the Node version>" : t;
    },
  },
  {
    id: "install-paths",
    description: "where the interpreter and its packages are installed (/usr/lib/python3/dist-packages on Debian's, site-packages under the image's prefix)",
    rewrite: (t) =>
      t
        .replace(/\/(?:usr\/local|usr|opt\/[^/\s]+)\/lib\/python3\.<minor>\/(?:site|dist)-packages/g, "<packages>")
        .replace(/\/usr\/lib\/python3\/dist-packages/g, "<packages>")
        .replace(/\/(?:usr\/local|usr|opt\/[^/\s]+)\/lib\/python3\.<minor>/g, "<stdlib>"),
  },
  {
    id: "agent-paths",
    description: "the agent's own files (its kernel's prefix under /tmp/enclave-agent-…)",
    rewrite: (t) => t.replace(/\/tmp\/enclave-agent-[^/\s'"]+/g, "<agent>"),
  },
];

function texts(parts: Part[]): string {
  return parts.map((p) => (p.kind === "text" ? p.text : `\u0000${p.kind}:${p.mime}\u0000${p.kind === "rich" ? p.text : ""}`)).join("\n");
}

/** Both outputs of a cell through the placement rules (text parts only). */
export function rewriteParts(parts: Part[], versions: { enclave: string; reference: string }, code: string): Part[] {
  return parts.map((p) => (p.kind === "text" ? { ...p, text: PLACEMENT_RULES.reduce((t, r) => r.rewrite(t, versions, code), p.text) } : p));
}

/** The rules that make the enclosure's output of a cell equal to host placement's, or undefined. */
export function placementDifference(
  _language: Language,
  code: string,
  enclosure: Part[],
  host: Part[],
  versions: { enclave: string; reference: string },
): string[] | undefined {
  let a = texts(enclosure);
  let b = texts(host);
  if (a === b) return undefined;
  const used: string[] = [];
  for (const rule of PLACEMENT_RULES) {
    const na = rule.rewrite(a, versions, code);
    const nb = rule.rewrite(b, versions, code);
    if (na !== a || nb !== b) used.push(rule.id);
    a = na;
    b = nb;
    if (a === b) return used;
  }
  return undefined;
}

/** The placement rules that change any of these outputs. */
export function rulesChanging(outputs: Part[][], versions: { enclave: string; reference: string }, code: string): string[] {
  return PLACEMENT_RULES.filter((r) => outputs.some((parts) => parts.some((p) => p.kind === "text" && r.rewrite(p.text, versions, code) !== p.text))).map(
    (r) => r.id,
  );
}
