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
  rewrite(text: string, versions: { enclave: string; reference: string }): string;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

export const PLACEMENT_RULES: PlacementRule[] = [
  {
    id: "interpreter-version",
    description: "the interpreter's version where a cell prints it, and its library folder's name (python3.11 against python3.12)",
    rewrite: (t, v) => {
      let out = t;
      for (const version of [v.enclave, v.reference]) if (version && version !== "?") out = out.replace(new RegExp(`\\b${escapeRe(version)}\\b`, "g"), "<version>");
      return out.replace(/\bpython3\.\d+\b/g, "python3.<minor>");
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

/** The rules that make the enclosure's output of a cell equal to host placement's, or undefined. */
export function placementDifference(
  _language: Language,
  enclosure: Part[],
  host: Part[],
  versions: { enclave: string; reference: string },
): string[] | undefined {
  let a = texts(enclosure);
  let b = texts(host);
  if (a === b) return undefined;
  const used: string[] = [];
  for (const rule of PLACEMENT_RULES) {
    const na = rule.rewrite(a, versions);
    const nb = rule.rewrite(b, versions);
    if (na !== a || nb !== b) used.push(rule.id);
    a = na;
    b = nb;
    if (a === b) return used;
  }
  return undefined;
}
