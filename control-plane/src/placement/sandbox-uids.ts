// Each host sandbox runs as a host uid of its own, from a range reserved for Enclave, so that the
// kernel's per-uid state (the user keyring, inotify instances, RLIMIT_NPROC, signals, ptrace) is
// never shared between conversations. An allocation is a file of the control plane's data folder
// named by the uid and holding its owner (a conversation key, or a spare's label), created
// exclusively: it survives a restart, so a uid stays its conversation's until that is deleted, and
// is never handed to another while it is held.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EnclaveError } from "../errors.js";
import type { UidRange } from "../model/host-sandbox.js";

/** Owners of spares start with this: a spare of an earlier run died with it, and its uid is free again. */
const SPARE = "spare:";

export class SandboxUids {
  private readonly owners = new Map<number, string>();
  private readonly byOwner = new Map<string, number>();
  /** Where the next search starts: a freed uid is reused last. */
  private cursor = 0;

  constructor(
    private readonly dir: string,
    readonly range: UidRange,
    /** Who holds these uids and the setting that widens the range, for the error when all are held. */
    private readonly naming = { holders: "host sandbox", countSetting: "ENCLAVE_HOST_UID_COUNT" },
  ) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (const name of readdirSync(dir)) {
      const uid = Number(name);
      if (!/^\d+$/.test(name) || !this.inRange(uid)) continue;
      let owner: string;
      try {
        owner = readFileSync(join(dir, name), "utf8");
      } catch {
        continue;
      }
      if (owner.startsWith(SPARE) || owner === "" || this.byOwner.has(owner)) {
        rmSync(join(dir, name), { force: true });
        continue;
      }
      this.owners.set(uid, owner);
      this.byOwner.set(owner, uid);
      this.cursor = Math.max(this.cursor, uid - range.base + 1);
    }
  }

  private inRange(uid: number): boolean {
    return uid >= this.range.base && uid < this.range.base + this.range.count;
  }

  /** The owner's uid: the one it holds, else a free one, recorded before it is returned. */
  acquire(owner: string): number {
    const held = this.byOwner.get(owner);
    if (held !== undefined) return held;
    for (let i = 0; i < this.range.count; i++) {
      const offset = (this.cursor + i) % this.range.count;
      const uid = this.range.base + offset;
      if (this.owners.has(uid)) continue;
      try {
        writeFileSync(join(this.dir, String(uid)), owner, { flag: "wx", mode: 0o600 });
      } catch (err) {
        // Held by a file this process did not load (another control plane on the same folder): skip it.
        if ((err as NodeJS.ErrnoException).code === "EEXIST") continue;
        throw err;
      }
      this.owners.set(uid, owner);
      this.byOwner.set(owner, uid);
      this.cursor = offset + 1;
      return uid;
    }
    throw new EnclaveError(
      "placement_unavailable",
      `every one of the ${this.range.count} ${this.naming.holders} uids from ${this.range.base} is held by a conversation: delete some, or widen ${this.naming.countSetting}`,
    );
  }

  /** The uid `from` held is `to`'s now (a spare taken by a conversation). */
  transfer(from: string, to: string): void {
    const uid = this.byOwner.get(from);
    if (uid === undefined) return;
    const file = join(this.dir, String(uid));
    writeFileSync(`${file}.new`, to, { mode: 0o600 });
    renameSync(`${file}.new`, file);
    this.byOwner.delete(from);
    this.owners.set(uid, to);
    this.byOwner.set(to, uid);
  }

  /** Frees the owner's uid, once nothing of its sandbox runs. */
  release(owner: string): void {
    const uid = this.byOwner.get(owner);
    if (uid === undefined) return;
    rmSync(join(this.dir, String(uid)), { force: true });
    this.byOwner.delete(owner);
    this.owners.delete(uid);
  }

  /** The owner's uid, when it holds one. */
  of(owner: string): number | undefined {
    return this.byOwner.get(owner);
  }

  /** Every owner holding a uid now. */
  holders(): string[] {
    return [...this.byOwner.keys()];
  }

  /** A spare's owner name. */
  static spare(label: string): string {
    return `${SPARE}${label}`;
  }

  static isSpare(owner: string): boolean {
    return owner.startsWith(SPARE);
  }
}
