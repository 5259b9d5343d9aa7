// The messages between the structural-search engine and its worker threads.
import type { ChunkRange } from "./chunk-plan.js";
import type { Match } from "./matcher.js";
import type { CompiledPattern } from "./pattern-compiler.js";

export interface WorkerInit {
  grammarDir: string;
  /** This worker's share of the tree cache's memory budget, in bytes. */
  budgetBytes: number;
}

export interface CacheUsage {
  trees: number;
  /** Estimated bytes the kept trees take in the worker's WebAssembly memory. */
  bytes: number;
}

export type WorkerRequest =
  /** Load the grammar now, so a parse sent next does not wait for it. */
  | { type: "prepare"; id: number; grammar: string }
  /** `range`: parse and match only that piece of the file (chunk-plan.ts); kept under its own key. */
  | { type: "match"; id: number; grammar: string; hash: string; source?: string; pattern: CompiledPattern; limit: number; range?: ChunkRange }
  | { type: "forget"; id: number; keys: string[] };

export type WorkerReply =
  | { type: "prepared"; id: number }
  /** `kept`: the worker keeps this file's tree; `dropped`: keys whose trees it let go to make room.
   * For a piece, `hasError` also says the piece did not begin with a node at its first character. */
  | { type: "matched"; id: number; matches: Match[]; hasError: boolean; cache: CacheUsage; kept: boolean; dropped: string[] }
  | { type: "need-source"; id: number }
  | { type: "forgot"; id: number; cache: CacheUsage }
  | { type: "failed"; id: number; message: string };

/** The key a worker keeps a tree under: the grammar and the text's hash, and for a piece its range. */
export function treeKey(grammar: string, hash: string, range?: ChunkRange): string {
  return range ? `${grammar}\0${hash}\0${range.startIndex}-${range.endIndex}` : `${grammar}\0${hash}`;
}
