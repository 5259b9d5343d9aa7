import { readdirSync, readFileSync, existsSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// Layering is kept by construction: a module graph with a cycle has no floor, so one test walks the
// relative imports (static, export-from and dynamic import()) of the control plane and the agent and
// fails on the first strongly connected component larger than one file. Python kernel modules too.
const root = resolve(import.meta.dirname, "../..");

function filesUnder(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path, ext));
    else if (entry.name.endsWith(ext) && !entry.name.endsWith(".d.ts")) out.push(path);
  }
  return out;
}

const tsSpecifier = /(?:\bimport|\bexport)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

function tsEdges(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const targets: string[] = [];
  for (const match of text.matchAll(tsSpecifier)) {
    const spec = match[1] ?? match[2];
    if (spec === undefined || !spec.startsWith(".")) continue;
    const target = resolve(dirname(file), spec.replace(/\.js$/, ".ts"));
    if (existsSync(target) && statSync(target).isFile()) targets.push(target);
  }
  return targets;
}

function pyEdges(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const targets: string[] = [];
  // Relative imports only ("from .x import y", "from . import x"): the package's own modules.
  for (const match of text.matchAll(/^[ \t]*from[ \t]+\.(\w*)[ \t]+import[ \t]+([\w \t,()]+)$/gm)) {
    const names = match[1]
      ? [match[1]]
      : match[2]!
          .replace(/[()]/g, "")
          .split(",")
          .map((n) => n.trim());
    for (const name of names) {
      const target = join(dirname(file), `${name}.py`);
      if (existsSync(target)) targets.push(target);
    }
  }
  return targets;
}

/** Tarjan's strongly connected components; returns the ones with more than one file. */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.map((f) => relative(root, f)).sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

function graphOf(files: string[], edges: (file: string) => string[]): Map<string, string[]> {
  return new Map(files.map((file) => [file, edges(file)]));
}

describe("import graph", () => {
  for (const tree of ["control-plane/src", "enclave-agent/src"]) {
    it(`${tree} has no import cycle`, () => {
      expect(cycles(graphOf(filesUnder(join(root, tree), ".ts"), tsEdges))).toEqual([]);
    });
  }

  // The floors of the control plane: model/ is the ground (node builtins and generated proto types
  // only); the hardening audit reads placement only through the ports it is handed, and placement
  // never reaches into the audit that judges it.
  const cp = join(root, "control-plane/src");
  const reaching = (from: string, into: string[]): string[] =>
    filesUnder(join(cp, from), ".ts").flatMap((file) =>
      tsEdges(file)
        .filter((target) => into.some((floor) => !relative(join(cp, floor), target).startsWith("..")))
        .map((target) => `${relative(cp, file)} -> ${relative(cp, target)}`),
    );

  it("model/ imports nothing of the control plane", () => {
    const outside = filesUnder(join(cp, "model"), ".ts").flatMap((file) =>
      tsEdges(file)
        .filter((t) => relative(join(cp, "model"), t).startsWith(".."))
        .map((t) => `${relative(cp, file)} -> ${relative(root, t)}`),
    );
    expect(outside).toEqual([]);
  });

  it("hardening/ imports no placement module, and placement/ no hardening one", () => {
    expect(reaching("hardening", ["placement"])).toEqual([]);
    expect(reaching("placement", ["hardening"])).toEqual([]);
  });

  it("placement/ reads the configuration's data from model/, never config.ts (which parses it)", () => {
    expect(reaching("placement", ["config.ts"])).toEqual([]);
  });

  it("the agent's Python modules have no import cycle", () => {
    expect(cycles(graphOf(filesUnder(join(root, "enclave-agent/src"), ".py"), pyEdges))).toEqual([]);
  });
});
