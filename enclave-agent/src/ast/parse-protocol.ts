// The messages between the structural-search engine and its worker threads.
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
  | { type: "match"; id: number; grammar: string; hash: string; source?: string; pattern: CompiledPattern; limit: number }
  | { type: "forget"; id: number; keys: string[] };

export type WorkerReply =
  | { type: "matched"; id: number; matches: Match[]; hasError: boolean; cache: CacheUsage }
  | { type: "need-source"; id: number }
  | { type: "forgot"; id: number; cache: CacheUsage }
  | { type: "failed"; id: number; message: string };
