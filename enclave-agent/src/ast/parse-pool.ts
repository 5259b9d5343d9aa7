// Worker threads that parse and match for structural search, one per core (up to a limit): a file
// whose tree a worker keeps goes back to that worker; a file no worker has goes to the one with the
// least text waiting to be parsed, so one large file does not hold up the files queued behind it.
// Started on the first search, stopped after a while idle (which also gives their memory back).
// Where no worker entry exists (running from TypeScript sources) the engine parses in its own thread.
import { existsSync, readFileSync } from "node:fs";
import * as os from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { LIMITS } from "../limits.js";
import type { Match } from "./matcher.js";
import type { CacheUsage, WorkerInit, WorkerReply, WorkerRequest } from "./parse-protocol.js";
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

export class ParsePool {
  private slots: Slot[] | undefined;
  private nextId = 1;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly entry: string | undefined;

  /** `entry`: the worker's script, when not beside this module (tests running from sources). */
  constructor(
    private readonly grammarDir: string,
    entry?: string,
  ) {
    this.entry = entry ?? workerEntry();
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
   * text; a file no worker keeps goes with its text to the least busy one.
   */
  async match(grammar: string, hash: string, source: string, pattern: CompiledPattern, limit: number): Promise<{ matches: Match[]; hasError: boolean }> {
    const slots = this.start();
    this.touch();
    const key = `${grammar}\0${hash}`;
    const home = slots.find((s) => s.keys.has(key));
    const slot = home ?? slots.reduce((a, b) => (b.queued < a.queued || (b.queued === a.queued && b.pending.size < a.pending.size) ? b : a));
    const ask = async (withSource: boolean): Promise<WorkerReply> => {
      if (!withSource) return this.send(slot, { type: "match", id: this.nextId++, grammar, hash, pattern, limit });
      slot.queued += source.length;
      try {
        return await this.send(slot, { type: "match", id: this.nextId++, grammar, hash, pattern, limit, source });
      } finally {
        slot.queued -= source.length;
      }
    };
    let reply = await ask(home === undefined);
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

  /** Drops kept trees (the agent wrote those files: their old text will not be asked for again). */
  forget(keys: string[]): void {
    if (!this.slots || keys.length === 0) return;
    for (const slot of this.slots) {
      for (const k of keys) slot.keys.delete(k);
      void this.send(slot, { type: "forget", id: this.nextId++, keys }).catch(() => undefined);
    }
  }

  /** What the kept trees take, over every worker. */
  usage(): CacheUsage & { workers: number } {
    const slots = this.slots ?? [];
    return { workers: slots.length, trees: slots.reduce((n, s) => n + s.usage.trees, 0), bytes: slots.reduce((n, s) => n + s.usage.bytes, 0) };
  }

  stop(): void {
    clearTimeout(this.idleTimer);
    const slots = this.slots;
    this.slots = undefined;
    for (const s of slots ?? []) void s.worker.terminate();
  }
}
