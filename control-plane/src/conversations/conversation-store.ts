// Conversations and what the control plane knows of their enclosures, kept in one JSON file so a
// restarted control plane finds its conversations (and reattaches to running enclosures).
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { EnclosureRuntime } from "../config.js";
import { EnclaveError } from "../errors.js";

export interface EnclosureLimits {
  memoryBytes: number;
  cpus: number;
  pids: number;
  /** Copy mode's workspace volume size; 0 in bind mode. Missing in records made before it existed. */
  diskBytes?: number;
}

/** Copy mode's size-limited workspace volume (see placement/workspace-disk.ts). */
export interface WorkspaceDiskRecord {
  volume: string;
  image: string;
  loopDevice: string;
  limitBytes: number;
}

export interface EnclosureRecord {
  containerId: string;
  image: string;
  startedAtMs: number;
  limits: EnclosureLimits;
  workspaceMode: "bind" | "copy";
  runtime: EnclosureRuntime;
  relaxations: string[];
  user: string;
  disk?: WorkspaceDiskRecord;
  state: "starting" | "running" | "dead";
  detail: string;
  /** Set when the enclosure came from the warm pool (pre-started, then claimed by this conversation alone). */
  pool?: PoolOrigin;
}

export interface PoolOrigin {
  /** The profile it was kept warm for (a digest of its settings). */
  profile: string;
  createdAtMs: number;
  claimedAtMs: number;
  /** Bind mode: the host folder, owned by the control plane, its workspace was mounted on (unmounted at stop). */
  slot?: string;
}

export interface ConversationRecord {
  id: string;
  workspacePath: string;
  /** True when the control plane made the workspace folder (and so removes it with the conversation). */
  ownsWorkspace: boolean;
  createdAtMs: number;
  enclosure?: EnclosureRecord;
  /** What the last copy-mode stop did not bring back into the workspace, one line each. */
  notCopiedBack?: string[];
}

const ID_RE = /^[A-Za-z0-9_-]{1,64}$/;

export class ConversationStore {
  private readonly conversations = new Map<string, ConversationRecord>();
  private readonly file: string;

  constructor(private readonly dataDir: string) {
    this.file = join(dataDir, "conversations.json");
    if (existsSync(this.file)) {
      const saved = JSON.parse(readFileSync(this.file, "utf8")) as ConversationRecord[];
      for (const c of saved) {
        // Recorded before enclosures named their runtime: those all ran under runc.
        if (c.enclosure && !c.enclosure.runtime) c.enclosure.runtime = "runc";
        this.conversations.set(c.id, c);
      }
    }
  }

  newId(): string {
    return `c-${randomBytes(5).toString("hex")}`;
  }

  checkId(id: string): void {
    if (!ID_RE.test(id)) {
      throw new EnclaveError("invalid_arguments", `conversation id \`${id}\` is not valid: use 1–64 letters, digits, '-' or '_'`);
    }
  }

  get(id: string): ConversationRecord {
    const c = this.conversations.get(id);
    if (!c) throw new EnclaveError("not_found", `no conversation \`${id}\`; create it first (\`enclave conversations create ${id}\`)`);
    return c;
  }

  has(id: string): boolean {
    return this.conversations.has(id);
  }

  list(): ConversationRecord[] {
    return [...this.conversations.values()].sort((a, b) => a.createdAtMs - b.createdAtMs);
  }

  put(c: ConversationRecord): void {
    this.conversations.set(c.id, c);
    this.save();
  }

  delete(id: string): void {
    this.conversations.delete(id);
    this.save();
  }

  save(): void {
    mkdirSync(dirname(this.file), { recursive: true });
    const temp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(this.list(), null, 2));
    renameSync(temp, this.file);
  }

  workspaceFor(id: string): string {
    return join(this.dataDir, "workspaces", id);
  }
}
