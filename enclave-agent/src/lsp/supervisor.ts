// The language-server supervisor: one process per (server, root), started on first need and shared
// by every call (concurrent first calls wait on the same start). A server that dies is restarted
// lazily by the next call, after a backoff; one that keeps dying young goes into the broken set and is
// not respawned until `reload`, so a crash loop never eats the machine.
import { dirname, extname, join, relative } from "node:path";
import { AgentError } from "../errors.js";
import { describeBinary } from "../exec/resolve-binary.js";
import type { WorkspacePaths } from "../fs/workspace-paths.js";
import { LIMITS } from "../limits.js";
import { type CompileCommandsMode, compileCommandsFor, sourcesChanged } from "./compile-commands.js";
import { checkServerBinary } from "./server-binary.js";
import { ServerConnection } from "./server-connection.js";
import { LANGUAGE_IDS, LANGUAGE_SERVERS, type LanguageServerSpec } from "@enclave/proto/server-registry.js";
import { markerFolders, nearestRoot } from "../fs/project-roots.js";
import { RootCache } from "../fs/root-cache.js";
import { sleep } from "@enclave/proto/wait.js";

export interface ServerChoice {
  spec: LanguageServerSpec;
  root: string;
  binary: string;
}

interface CrashRecord {
  count: number;
  lastReason: string;
  lastStderr: string;
  retryAt: number;
}

export interface ServerState {
  id: string;
  languages: string[];
  state: "running" | "available" | "missing_marker" | "missing_binary" | "broken";
  roots: string[];
  detail: string;
  rootMarkers: string[];
  /** How the server sees each root (same order as roots), where that varies (clangd's database). */
  rootModes: string[];
}

export interface SupervisorOptions {
  /** The agent's private folder for what servers need beside the workspace (derived databases). */
  stateDir?: string;
}

const keyOf = (id: string, root: string): string => `${id}\u0000${root}`;

export class LspSupervisor {
  /** Starting or started servers by (server, root): concurrent first calls share one start. */
  private readonly servers = new Map<string, Promise<ServerConnection>>();
  /** The started ones, for status, sync and stop. */
  private readonly ready = new Map<string, ServerConnection>();
  private readonly forgotten = new WeakSet<ServerConnection>();
  private readonly crashes = new Map<string, CrashRecord>();
  /** clangd: the compilation database each running (server, root) was started with. */
  private readonly databases = new Map<string, CompileCommandsMode>();
  /** Which folders hold which markers, kept while their folder watches report nothing. */
  private readonly roots = new RootCache(LIMITS.lspOpenDocumentSweepMs);
  private closed = false;

  constructor(
    readonly paths: WorkspacePaths,
    private readonly opts: SupervisorOptions = {},
  ) {}

  languageIdFor(fileAbs: string): string {
    return LANGUAGE_IDS[extname(fileAbs).toLowerCase()] ?? "plaintext";
  }

  private specsFor(fileAbs: string): LanguageServerSpec[] {
    const ext = extname(fileAbs).toLowerCase();
    return LANGUAGE_SERVERS.filter((s) => s.extensions.includes(ext));
  }

  /**
   * The server that answers for a file: the first in the registry for its extension whose root marker
   * exists and whose binary resolves. None usable is an error that says, per server, what is missing.
   * The caller lets the event loop turn first (see RootCache): a marker made before its call counts.
   */
  primaryFor(fileAbs: string): ServerChoice {
    const specs = this.specsFor(fileAbs);
    const shown = (): string => this.paths.relative(fileAbs);
    if (specs.length === 0) {
      const known = [...new Set(LANGUAGE_SERVERS.flatMap((s) => s.extensions))].join(" ");
      throw new AgentError("lsp_no_server", `no language server handles \`${extname(fileAbs) || shown()}\` files (servers are known for ${known})`);
    }
    const why: string[] = [];
    for (const spec of specs) {
      const root = this.roots.nearestRoot(spec.rootMarkers, dirname(fileAbs), this.paths.root);
      // A live server for this root was started from a binary that resolved: the connection is
      // what a query uses, so looking the binary up again (a dozen stats) would decide nothing.
      const live = root === undefined ? undefined : this.ready.get(keyOf(spec.id, root));
      if (root && live?.alive) return { spec, root, binary: live.binary };
      const binary = checkServerBinary(spec, root ?? this.paths.root);
      if (root && binary.ok) return { spec, root, binary: binary.path };
      const missing: string[] = [];
      if (!root) missing.push(`no root marker (${spec.rootMarkers.join(", ")}) in \`${shown()}\`'s folder or above it in the workspace`);
      if (!binary.ok) missing.push(binary.why);
      why.push(`${spec.id}: ${missing.join("; and ")}`);
    }
    throw new AgentError("lsp_no_server", `no language server can start for \`${shown()}\`: ${why.join(" | ")}`);
  }

  /** Running servers that hold `fileAbs` in their root (for keeping their open documents in sync). */
  runningFor(fileAbs: string): ServerConnection[] {
    const specs = new Set(this.specsFor(fileAbs).map((s) => s.id));
    return this.settled().filter((c) => c.alive && specs.has(c.id) && (fileAbs === c.root || fileAbs.startsWith(`${c.root}/`)));
  }

  private settled(): ServerConnection[] {
    return [...this.ready.values()];
  }

  private brokenMessage(spec: LanguageServerSpec, root: string, rec: CrashRecord): string {
    return (
      `the ${spec.id} language server for \`${relative(this.paths.root, root) || "."}\` died ${rec.count} times in a row ` +
      `(last: ${rec.lastReason}${rec.lastStderr ? `; its output: ${rec.lastStderr}` : ""}), so it is not restarted; ` +
      `fix its setup, then call lsp with action reload`
    );
  }

  /** The connection for a choice, starting (or restarting, after a backoff) the server when needed. */
  async connect(choice: ServerChoice): Promise<ServerConnection> {
    if (this.closed) throw new AgentError("stopping", "the agent is stopping");
    const key = keyOf(choice.spec.id, choice.root);
    const existing = this.servers.get(key);
    if (existing) {
      const current = this.ready.get(key);
      if (!current || current.alive) return existing;
      // Dead, and its exit not yet handled: account for it now and start afresh.
      this.forget(key, current);
    }
    const rec = this.crashes.get(key);
    if (rec && rec.count >= LIMITS.lspMaxCrashes) throw new AgentError("failed_precondition", this.brokenMessage(choice.spec, choice.root, rec));
    const starting = (async () => {
      if (rec && rec.retryAt > Date.now()) await sleep(rec.retryAt - Date.now());
      let extraArgs: string[] = [];
      if (choice.spec.compilationDatabase) {
        const mode = compileCommandsFor(choice.root, this.paths.root, this.opts.stateDir, true);
        this.databases.set(key, mode);
        extraArgs = mode.args;
      }
      const conn = await ServerConnection.start(choice.spec, choice.root, choice.binary, extraArgs);
      this.ready.set(key, conn);
      void conn.exited.then(() => this.forget(key, conn));
      return conn;
    })();
    this.servers.set(key, starting);
    starting.catch((err: unknown) => {
      this.servers.delete(key);
      this.recordCrash(key, err instanceof Error ? err.message : String(err), "", 0);
    });
    return starting;
  }

  /** How a running server sees its root's project (clangd's compilation database), if that varies. */
  databaseOf(conn: ServerConnection): CompileCommandsMode | undefined {
    return this.databases.get(keyOf(conn.id, conn.root));
  }

  /**
   * Whether the server's derived database no longer lists the root's sources (a file added or
   * removed since it started): clangd does not reread it, so such a server must be restarted for a
   * project-wide operation to see every file.
   */
  databaseStale(conn: ServerConnection): boolean {
    const mode = this.databaseOf(conn);
    return mode !== undefined && sourcesChanged(mode, conn.root);
  }

  /** Stops one server; the next call starts it afresh (re-deriving its database). */
  async restart(conn: ServerConnection): Promise<void> {
    const key = keyOf(conn.id, conn.root);
    if (this.ready.get(key) === conn) {
      this.ready.delete(key);
      this.servers.delete(key);
    }
    this.databases.delete(key);
    await conn.stop();
  }

  /** Drops a dead connection and records its death, once, whoever notices first. */
  private forget(key: string, conn: ServerConnection): void {
    if (this.forgotten.has(conn)) return;
    this.forgotten.add(conn);
    if (this.ready.get(key) === conn) {
      this.ready.delete(key);
      this.servers.delete(key);
    }
    if (conn.stoppedOnRequest) return;
    this.recordCrash(key, conn.deathReason ?? "died", conn.stderr(), Date.now() - conn.startedAt);
  }

  private recordCrash(key: string, reason: string, stderr: string, livedMs: number): void {
    const prev = this.crashes.get(key);
    // Only deaths soon after a start count towards the broken set; a long healthy life resets it.
    const count = prev && livedMs < LIMITS.lspCrashWindowMs ? prev.count + 1 : 1;
    const backoff = Math.min(LIMITS.lspRestartBackoffMs * 2 ** (count - 1), LIMITS.lspRestartBackoffMaxMs);
    this.crashes.set(key, { count, lastReason: reason, lastStderr: stderr, retryAt: Date.now() + backoff });
  }

  status(): ServerState[] {
    return LANGUAGE_SERVERS.map((spec): ServerState => {
      const running = this.settled().filter((c) => c.id === spec.id && c.alive);
      const base = { id: spec.id, languages: spec.languages, rootMarkers: spec.rootMarkers, rootModes: [] as string[] };
      const rel = (abs: string): string => relative(this.paths.root, abs) || ".";
      // clangd: where each root's compilation database comes from (described, never written here).
      const modes = (roots: string[]): string[] =>
        spec.compilationDatabase ? roots.map((r) => compileCommandsFor(join(this.paths.root, r), this.paths.root, this.opts.stateDir, false).describe) : [];
      if (running.length) {
        const roots = running.map((c) => rel(c.root));
        const described = spec.compilationDatabase ? running.map((c) => this.databaseOf(c)?.describe ?? modes([rel(c.root)])[0] ?? "") : [];
        return {
          ...base,
          state: "running",
          roots,
          rootModes: described,
          detail: `pid ${running.map((c) => c.pid).join(", ")}${running.some((c) => c.indexing) ? " (indexing)" : ""}`,
        };
      }
      const broken = [...this.crashes.entries()].filter(([k, r]) => k.startsWith(`${spec.id}\u0000`) && r.count >= LIMITS.lspMaxCrashes);
      if (broken.length) {
        const [k, r] = broken[0] as [string, CrashRecord];
        const root = k.split("\u0000")[1] ?? this.paths.root;
        return { ...base, state: "broken", roots: broken.map(([kk]) => rel(kk.split("\u0000")[1] ?? "")), detail: this.brokenMessage(spec, root, r) };
      }
      const roots = markerFolders(spec.rootMarkers, this.paths.root, 2).map((d) => relative(this.paths.root, d) || ".");
      const binary = checkServerBinary(spec, join(this.paths.root, roots[0] ?? "."));
      if (!binary.ok) return { ...base, state: "missing_binary", roots, detail: binary.why };
      const shown = describeBinary(binary);
      if (roots.length === 0)
        return { ...base, state: "missing_marker", roots, detail: `${shown} is installed, but no folder of the workspace has ${spec.rootMarkers.join(", ")}` };
      return {
        ...base,
        state: "available",
        roots,
        rootModes: modes(roots),
        detail: `${shown}; starts on the first call for a file under ${roots.map((r) => `\`${r}\``).join(", ")}`,
      };
    });
  }

  /** Stops the servers for the file's roots (every server without a file) and forgets their crashes. */
  async reload(fileAbs?: string): Promise<{ stopped: string[]; unbroken: string[] }> {
    const match = (id: string, root: string): boolean => {
      if (!fileAbs) return true;
      const spec = LANGUAGE_SERVERS.find((s) => s.id === id);
      return Boolean(
        spec && spec.extensions.includes(extname(fileAbs).toLowerCase()) && nearestRoot(spec.rootMarkers, dirname(fileAbs), this.paths.root) === root,
      );
    };
    const unbroken: string[] = [];
    for (const [key] of this.crashes) {
      const [id = "", root = ""] = key.split("\u0000");
      if (match(id, root)) {
        this.crashes.delete(key);
        unbroken.push(`${id}@${relative(this.paths.root, root) || "."}`);
      }
    }
    const stopped: string[] = [];
    await Promise.all(
      [...this.ready.entries()].map(async ([key, conn]) => {
        if (!match(conn.id, conn.root)) return;
        this.ready.delete(key);
        this.servers.delete(key);
        this.databases.delete(key);
        stopped.push(`${conn.id}@${relative(this.paths.root, conn.root) || "."}`);
        await conn.stop();
      }),
    );
    return { stopped, unbroken };
  }

  async stopAll(): Promise<void> {
    this.closed = true;
    this.roots.close();
    const starting = [...this.servers.values()];
    await Promise.all(
      starting.map((p) =>
        p.then(
          (c) => c.stop(),
          () => undefined,
        ),
      ),
    );
    await Promise.all(this.settled().map((c) => c.stop()));
    this.ready.clear();
    this.servers.clear();
  }
}
