// Worker threads that parse and match for structural search, one per core (up to a limit): a file
// whose tree a worker keeps goes back to that worker; a file no worker has goes to the one with the
// least text waiting to be parsed, so one large file does not hold up the files queued behind it.
// A large file whose grammar says where it may be cut goes in top-level pieces to several workers at
// once (chunk-plan.ts), unless a piece does not parse cleanly on its own: then it is parsed whole.
// Started on the first search, stopped after a while idle (which also gives their memory back).
// Where no worker entry exists (running from TypeScript sources) the engine parses in its own thread.
import { existsSync, readFileSync } from "node:fs";
import * as os from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { LIMITS } from "../limits.js";
import { type ChunkRange, patternSplittable, planChunks } from "./chunk-plan.js";
import { grammarById } from "./grammar-registry.js";
import type { Match } from "./matcher.js";
import { type CacheUsage, treeKey, type WorkerInit, type WorkerReply, type WorkerRequest } from "./parse-protocol.js";
import type { CompiledPattern } from "./pattern-compiler.js";

/** The worker's entry beside this module: the bundle's (dist/agent) or tsc's (dist/…/ast). */
function workerEntry(): string | undefined {
  for (const name of ["./ast-worker.mjs", "./ast-worker.js"]) {
    const file = fileURLToPath(new URL(name, import.meta.url));
    if (existsSync(file)) return file;
  }
  return undefined;
}

/** The memory this process may use: its cgroup's limit (an enclosure's), else the machine's. */
function memoryLimitBytes(): number {
  for (const file of ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"]) {
    try {
      const n = Number(readFileSync(file, "utf8").trim());
      if (Number.isFinite(n) && n > 0 && n < os.totalmem()) return n;
    } catch {
      // Not this cgroup version, or not visible.
    }
  }
  return os.totalmem();
}

/** Kept trees take at most the configured budget, and never more than a quarter of the memory there is. */
export function treeBudgetBytes(): number {
  return Math.min(LIMITS.astTreeCacheBytes, Math.floor(memoryLimitBytes() / 4));
}

interface Slot {
  worker: Worker;
  usage: CacheUsage;
  pending: Map<number, { resolve: (r: WorkerReply) => void; reject: (e: Error) => void }>;
  /** Keys of the trees the worker said it keeps (it may have let some go since: then it asks for the text). */
  keys: Set<string>;
  /** Characters of text sent to it and not yet answered. */
  queued: number;
}

/** How many file searches were answered from pieces parsed in parallel, and how many tries to cut
 * a file fell back to a whole parse. */
export interface SplitStats {
  splitSearches: number;
  splitFallbacks: number;
}

/** Files whose plan (pieces, or null: parse whole) is remembered, so a repeated search asks the
 * workers for the same pieces they keep. */
const MAX_PLANS = 1024;

export class ParsePool {
  private slots: Slot[] | undefined;
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly entry: string | undefined;
  private readonly splitMinChars: number;
  /** By whole-file tree key: the pieces the file was parsed in, or null when it is parsed whole. */
  private readonly plans = new Map<string, ChunkRange[] | null>();
  private readonly stats: SplitStats = { splitSearches: 0, splitFallbacks: 0 };

  /** `entry`: the worker's script, when not beside this module (tests running from sources);
   * `splitMinChars`: files at least this long may be parsed in pieces (LIMITS.astSplitMinChars). */
  constructor(
    private readonly grammarDir: string,
    entry?: string,
    opts: { splitMinChars?: number } = {},
  ) {
    this.entry = entry ?? workerEntry();
    this.splitMinChars = opts.splitMinChars ?? LIMITS.astSplitMinChars;
  }

  get available(): boolean {
    return this.entry !== undefined && LIMITS.astWorkers > 0;
  }

  private start(): Slot[] {
    if (this.slots) return this.slots;
    // availableParallelism is newer than some Node 18 builds an image may carry.
    const cores = typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length;
    const n = Math.max(1, Math.min(LIMITS.astWorkers, cores));
    const init: WorkerInit = { grammarDir: this.grammarDir, budgetBytes: Math.floor(treeBudgetBytes() / n) };
    const slots: Slot[] = [];
    for (let i = 0; i < n; i++) {
      const worker = new Worker(this.entry as string, { workerData: init });
      // An idle pool never keeps the agent alive.
      worker.unref();
      const slot: Slot = { worker, usage: { trees: 0, bytes: 0 }, pending: new Map(), keys: new Set(), queued: 0 };
      worker.on("message", (reply: WorkerReply) => {
        const p = slot.pending.get(reply.id);
        if (!p) return;
        slot.pending.delete(reply.id);
        if (reply.type === "matched" || reply.type === "forgot") slot.usage = reply.cache;
        p.resolve(reply);
      });
      const fail = (err: Error): void => {
        for (const p of slot.pending.values()) p.reject(err);
        slot.pending.clear();
        // A dead worker (out of memory, a crash in the runtime): the next search starts afresh.
        if (this.slots === slots) this.stop();
      };
      worker.on("error", fail);
      worker.on("exit", (code) => fail(new Error(`a structural-search worker exited (code ${code})`)));
      slots.push(slot);
    }
    this.slots = slots;
    return slots;
  }

  private send(slot: Slot, req: WorkerRequest): Promise<WorkerReply> {
    return new Promise((resolve, reject) => {
      slot.pending.set(req.id, { resolve, reject });
      slot.worker.postMessage(req);
    });
  }

  private touch(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.stop(), LIMITS.astWorkerIdleMs);
    this.idleTimer.unref();
  }

  /** Starts the workers (if they are not running) and has each load the grammar, so that the files
   * sent while the engine compiles the pattern and reads them are parsed at once. */
  prepare(grammar: string): void {
    const slots = this.start();
    this.touch();
    for (const slot of slots) void this.send(slot, { type: "prepare", id: this.nextId++, grammar }).catch(() => undefined);
  }

  /**
   * The matches of one file. The worker keeping its tree (by content hash) is asked without the
   * text; a file no worker keeps goes with its text to the least busy one. A large file may go in
   * pieces to several workers at once (`pieces` says how many it was matched in; 1: whole).
   */
  async match(
    grammar: string,
    hash: string,
    source: string,
    pattern: CompiledPattern,
    limit: number,
  ): Promise<{ matches: Match[]; hasError: boolean; pieces: number }> {
    const slots = this.start();
    this.touch();
    const key = treeKey(grammar, hash);
    const plan = this.plan(slots, grammar, key, source, pattern);
    if (plan) {
      // Each piece to its own worker: the one keeping it, else the least busy ones in turn.
      const idle = [...slots].sort((a, b) => a.queued - b.queued);
      const parts = await Promise.all(
        plan.map((range, i) => {
          const k = treeKey(grammar, hash, range);
          const slot = slots.find((s) => s.keys.has(k)) ?? (idle[i % idle.length] as Slot);
          return this.matchOn(slot, k, { grammar, hash, pattern, limit, range }, source, range.endIndex - range.startIndex);
        }),
      );
      if (parts.every((p) => !p.hasError)) {
        this.stats.splitSearches++;
        // In file order, the pieces' matches are the whole file's; each was capped at `limit`.
        return { matches: parts.flatMap((p) => p.matches).slice(0, limit), hasError: false, pieces: plan.length };
      }
      // A cut fell where the whole parse is not between top-level statements: parse whole, now and next time.
      this.stats.splitFallbacks++;
      this.remember(key, null);
      this.forget(plan.map((r) => treeKey(grammar, hash, r)));
    }
    const home = slots.find((s) => s.keys.has(key));
    const slot = home ?? slots.reduce((a, b) => (b.queued < a.queued || (b.queued === a.queued && b.pending.size < a.pending.size) ? b : a));
    const r = await this.matchOn(slot, key, { grammar, hash, pattern, limit }, source, source.length);
    return { ...r, pieces: 1 };
  }

  /** The pieces to parse this file in, or null to parse it whole (remembered per file content). */
  private plan(slots: Slot[], grammar: string, key: string, source: string, pattern: CompiledPattern): ChunkRange[] | null {
    const rule = grammarById(grammar)?.chunking;
    if (!rule || slots.length < 2 || source.length < this.splitMinChars || !patternSplittable(pattern, rule)) return null;
    const known = this.plans.get(key);
    if (known !== undefined) return known;
    // A worker already keeps the whole tree: asking it is cheaper than parsing again.
    if (slots.some((s) => s.keys.has(key))) return null;
    const plan = planChunks(source, rule, slots.length);
    this.remember(key, plan);
    return plan;
  }

  private remember(key: string, plan: ChunkRange[] | null): void {
    this.plans.delete(key);
    if (this.plans.size >= MAX_PLANS) {
      const oldest = this.plans.keys().next().value;
      if (oldest !== undefined) this.plans.delete(oldest);
    }
    this.plans.set(key, plan);
  }

  /** One tree's matches from one worker: asked without the text if it says it keeps the tree. */
  private async matchOn(
    slot: Slot,
    key: string,
    req: { grammar: string; hash: string; pattern: CompiledPattern; limit: number; range?: ChunkRange },
    source: string,
    chars: number,
  ): Promise<{ matches: Match[]; hasError: boolean }> {
    const ask = async (withSource: boolean): Promise<WorkerReply> => {
      if (!withSource) return this.send(slot, { type: "match", id: this.nextId++, ...req });
      slot.queued += chars;
      try {
        return await this.send(slot, { type: "match", id: this.nextId++, ...req, source });
      } finally {
        slot.queued -= chars;
      }
    };
    let reply = await ask(!slot.keys.has(key));
    if (reply.type === "need-source") {
      slot.keys.delete(key);
      reply = await ask(true);
    }
    if (reply.type === "failed") throw new Error(reply.message);
    if (reply.type !== "matched") throw new Error(`unexpected reply ${reply.type} from a structural-search worker`);
    for (const k of reply.dropped) slot.keys.delete(k);
    if (reply.kept) slot.keys.add(key);
    return { matches: reply.matches, hasError: reply.hasError };
  }

  /** Drops kept trees (the agent wrote those files: their old text will not be asked for again),
   * the pieces of those parsed in pieces included. */
  forget(wholeKeys: string[]): void {
    const keys = [...wholeKeys];
    for (const k of wholeKeys) {
      const plan = this.plans.get(k);
      if (plan === undefined) continue;
      this.plans.delete(k);
      // A piece's key is its file's key and its range (treeKey).
      for (const r of plan ?? []) keys.push(`${k}\0${r.startIndex}-${r.endIndex}`);
    }
    if (!this.slots || keys.length === 0) return;
    for (const slot of this.slots) {
      for (const k of keys) slot.keys.delete(k);
      void this.send(slot, { type: "forget", id: this.nextId++, keys }).catch(() => undefined);
    }
  }

  /** What the kept trees take, over every worker, and how often large files were parsed in pieces. */
  usage(): CacheUsage & SplitStats & { workers: number } {
    const slots = this.slots ?? [];
    return { workers: slots.length, trees: slots.reduce((n, s) => n + s.usage.trees, 0), bytes: slots.reduce((n, s) => n + s.usage.bytes, 0), ...this.stats };
  }

  stop(): void {
    clearTimeout(this.idleTimer);
    const slots = this.slots;
    this.slots = undefined;
    // The trees went with the workers; a plan may be made again for other workers.
    this.plans.clear();
    for (const s of slots ?? []) void s.worker.terminate();
  }
}
