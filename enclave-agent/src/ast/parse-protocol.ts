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
  /** Load the grammar now, so a parse sent next does not wait for it. */
  | { type: "prepare"; id: number; grammar: string }
  | { type: "match"; id: number; grammar: string; hash: string; source?: string; pattern: CompiledPattern; limit: number }
  | { type: "forget"; id: number; keys: string[] };

export type WorkerReply =
  | { type: "prepared"; id: number }
  /** `kept`: the worker keeps this file's tree; `dropped`: keys whose trees it let go to make room. */
  | { type: "matched"; id: number; matches: Match[]; hasError: boolean; cache: CacheUsage; kept: boolean; dropped: string[] }
  | { type: "need-source"; id: number }
  | { type: "forgot"; id: number; cache: CacheUsage }
  | { type: "failed"; id: number; message: string };
