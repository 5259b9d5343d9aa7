// A structural-search worker thread: parses files with the grammar and matches compiled patterns,
// keeping the parsed trees it made (by content hash) while they fit its share of the memory budget,
// so the same or another pattern over unchanged files runs without parsing again. Started by
// parse-pool.ts; speaks only the messages of parse-protocol.ts.
import { parentPort, workerData } from "node:worker_threads";
import { grammarById } from "./grammar-registry.js";
import { Matcher } from "./matcher.js";
import type { CompiledPattern } from "./pattern-compiler.js";
import { treeKey, type WorkerInit, type WorkerReply, type WorkerRequest } from "./parse-protocol.js";
import { TreeCache } from "./tree-cache.js";
import { parseSource, TreeSitterRuntime } from "./tree-sitter-runtime.js";

const init = workerData as WorkerInit;
const runtime = new TreeSitterRuntime(init.grammarDir, (message) => new Error(message));
const cache = new TreeCache(init.budgetBytes);

async function handle(req: WorkerRequest): Promise<WorkerReply> {
  if (req.type === "forget") {
    for (const key of req.keys) cache.drop(key);
    return { type: "forgot", id: req.id, cache: cache.usage() };
  }
  const grammar = grammarById(req.grammar);
  if (!grammar) throw new Error(`unknown grammar ${req.grammar}`);
  const parser = await runtime.parser(grammar);
  if (req.type === "prepare") return { type: "prepared", id: req.id };
  const compiled = req.pattern as CompiledPattern;
  const key = treeKey(req.grammar, req.hash, req.range);
  const dropped: string[] = [];
  let entry = cache.get(key);
  if (!entry) {
    if (req.source === undefined) return { type: "need-source", id: req.id };
    const tree = parseSource(parser, req.source, req.range);
    if (!tree) return { type: "matched", id: req.id, matches: [], hasError: false, cache: cache.usage(), kept: false, dropped };
    entry = cache.put(key, tree, req.source, dropped, req.range ? req.range.endIndex - req.range.startIndex : req.source.length);
  }
  const root = entry.tree.rootNode;
  // A piece after the first starts with a declaration at its first character; anything else means
  // the cut is not where the whole parse has a statement boundary.
  const misplaced = req.range !== undefined && req.range.startIndex > 0 && root.firstChild?.startIndex !== req.range.startIndex;
  const hasError = root.hasError || misplaced;
  // A piece that will not be used is not matched.
  const matches =
    req.range && hasError
      ? []
      : new Matcher(compiled, entry.source, req.range ? { within: { start: req.range.startIndex, end: req.range.endIndex } } : {}).findAll(
          entry.tree,
          req.limit,
        );
  // Past the budget (a single file larger than it): not kept.
  const kept = cache.has(key);
  if (!kept) entry.tree.delete();
  return { type: "matched", id: req.id, matches, hasError, cache: cache.usage(), kept, dropped };
}

// One request at a time, each answered before the next starts: requests that arrive while the
// grammar loads would otherwise all resume together, and a long parse would hold back the answers
// to those before it.
let turn: Promise<void> = Promise.resolve();
parentPort?.on("message", (req: WorkerRequest) => {
  turn = turn.then(() =>
    handle(req).then(
      (reply) => parentPort?.postMessage(reply),
      (err: unknown) =>
        parentPort?.postMessage({ type: "failed", id: req.id, message: err instanceof Error ? err.message : String(err) } satisfies WorkerReply),
    ),
  );
});
