// Structural search through the worker threads (the bundle's ast-worker.mjs, as the agent runs it)
// finds exactly what the in-thread search finds, in the same order, on a real corpus sample; a
// repeated search is answered from kept trees (the workers are asked by hash and need no text); a
// file changed on disk or written by the agent is matched on its new text.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AstEngine } from "@enclave/agent/ast/ast-engine.js";
import { WorkspacePaths } from "@enclave/agent/fs/workspace-paths.js";
import { agentBundleDir, repoRoot } from "@enclave/control-plane/repo-paths.js";

let root: string;
let pooled: AstEngine;
let inThread: AstEngine;

const PATTERNS = ["if ($X) { return $Y }", "return $A", "$F($$$ARGS)", 'const $N = "$S"', "for (const $K of $V) { $$$ }"];

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "ast-pool-"));
  // A sample of real JavaScript: the smaller files of typescript's lib (not the multi-megabyte ones).
  const lib = join(repoRoot, "node_modules", "typescript", "lib");
  mkdirSync(join(root, "lib"));
  for (const name of readdirSync(lib)) {
    if (name.endsWith(".js") && statSync(join(lib, name)).size < 400_000) copyFileSync(join(lib, name), join(root, "lib", name));
  }
  writeFileSync(join(root, "lib", "quotes.js"), "const a = 'single';\nconst b = \"double\";\nfunction f(x) { if (x) { return 1 } }\n");
  const paths = new WorkspacePaths(root);
  const grammars = join(agentBundleDir, "grammars");
  pooled = new AstEngine(paths, grammars, { workerEntry: join(agentBundleDir, "ast-worker.mjs") });
  inThread = new AstEngine(paths, grammars, { workers: false });
});

afterAll(() => {
  pooled.close();
  rmSync(root, { recursive: true, force: true });
});

const view = (r: Awaited<ReturnType<AstEngine["search"]>>) => ({
  truncated: r.truncated,
  filesSearched: r.filesSearched,
  matches: r.matches.map((m) => [m.path, m.match.start, m.match.end, m.text, [...m.match.bindings].map(([k, v]) => [k, v.text])]),
});

async function both(pattern: string, maxResults = 10_000) {
  const req = { pattern, path: "lib", language: "javascript", maxResults };
  return { pooled: view(await pooled.search(req)), inThread: view(await inThread.search(req)) };
}

describe("structural search in worker threads", () => {
  it("the workers are in use (the bundle's entry exists)", () => {
    expect(pooled.pool.available).toBe(true);
  });

  it("finds the same matches, in the same order, as the in-thread search; again from kept trees", async () => {
    for (const pass of ["first", "repeat"]) {
      for (const p of PATTERNS) {
        const r = await both(p);
        expect(r.pooled, `${pass}: ${p}`).toEqual(r.inThread);
      }
    }
    const used = pooled.cacheUsage();
    expect(used.trees).toBeGreaterThan(0);
    expect(used.bytes).toBeLessThanOrEqual(used.budgetBytes);
  });

  it("cuts at the cap exactly where the in-thread search does", async () => {
    const r = await both("return $A", 37);
    expect(r.pooled).toEqual(r.inThread);
    expect(r.pooled.truncated).toBe(true);
    expect(r.pooled.matches).toHaveLength(37);
  });

  it("a file changed behind the agent's back is matched on its new text (trees are keyed by content)", async () => {
    await both("if ($X) { return $Y }");
    writeFileSync(join(root, "lib", "quotes.js"), `${readFileSync(join(root, "lib", "quotes.js"), "utf8")}function g(y) { if (y) { return 2 } }\n`);
    const r = await both("if ($X) { return $Y }");
    expect(r.pooled).toEqual(r.inThread);
    expect(r.pooled.matches.filter((m) => m[0] === "lib/quotes.js").map((m) => m[3])).toEqual(["if (x) { return 1 }", "if (y) { return 2 }"]);
  });

  it("a write by the agent drops the file's old tree", async () => {
    await both("return $A");
    const before = pooled.cacheUsage().trees;
    pooled.forget(["lib/quotes.js"]);
    // The workers answer in order: one more request settles the forget.
    await both("return $A");
    expect(pooled.cacheUsage().trees).toBeLessThanOrEqual(before);
    const r = await both("return $A");
    expect(r.pooled).toEqual(r.inThread);
  });
});
