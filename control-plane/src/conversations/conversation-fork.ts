// What a fork copies of its source: the workspace as it is now, from wherever it lives (the host
// folder, or a copy-mode enclosure's volume), and the enclosure options to start the fork's own
// enclosure with. The copy is of a tree the source's code may be writing, so it goes through the
// careful walkers (fs/tree-copy.ts for a host folder, the careful unpacker for an enclosure's
// archive): no link is followed out of it, no special file is made, no inode is shared.
import { ArchiveLimitError, type SkippedEntry } from "../fs/archive-unpack.js";
import { copyTree } from "../fs/tree-copy.js";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import type { ConversationRecord, EnclosureRecord } from "../model/conversation.js";
import type { DockerDriver } from "../placement/docker-driver.js";
import { bareId } from "./conversation-keys.js";

/** What a fork may copy at most: the bytes, and whether they are the tenant's quota (or the server's bound). */
export interface ForkBound {
  maxBytes: number;
  /** The tenant's maxDiskBytes set the bound (a refusal is then quota_exceeded, naming it). */
  fromQuota: boolean;
  tenant: string;
}

export interface WorkspaceCopy {
  files: number;
  bytes: number;
  /** Lines for the fork's not_copied_back: what was left out, and that memory never is copied. */
  notCopied: string[];
  /** How the content was read: "host folder" or "enclosure (copy mode, paused)"… */
  from: string;
}

/** Said of every fork: Docker cannot restore a process into a new container, and nothing may bypass its hardening to try. */
export const MEMORY_NOT_FORKED = "(memory): not forked — the source's kernels, language servers and debug sessions keep running there; the fork's start fresh";

function skippedLines(skipped: readonly SkippedEntry[], total: number): string[] {
  const lines = skipped.slice(0, LIMITS.notCopiedBackListed).map((s) => `${s.path}: ${s.why}`);
  if (total > lines.length) lines.push(`… and ${total - lines.length} more`);
  return lines;
}

function boundError(err: ArchiveLimitError, bound: ForkBound, source: string): EnclaveError {
  if (err.limit === "entries") {
    return new EnclaveError("too_large", `conversation \`${source}\`'s workspace holds more than ${err.max} entries; a fork copies at most that many`);
  }
  return bound.fromQuota
    ? new EnclaveError(
        "quota_exceeded",
        `conversation \`${source}\`'s workspace holds more than tenant \`${bound.tenant}\`'s maxDiskBytes quota of ${bound.maxBytes} bytes; ` +
          `nothing was forked: make the workspace smaller, or raise it (\`enclave tokens quota ${bound.tenant} maxDiskBytes N\`)`,
      )
    : new EnclaveError("too_large", `conversation \`${source}\`'s workspace holds more than ${err.max} bytes; nothing was forked`);
}

/**
 * Copies the source's workspace into `into` (a fresh, empty folder of the control plane's). An
 * enclosure is paused while its workspace is read, so the copy is one file state; host placement's
 * folder is copied as it is (a call in flight there may be half seen).
 */
export async function copyForkWorkspace(
  src: ConversationRecord,
  into: string,
  bound: ForkBound,
  driverFor: (enc: EnclosureRecord) => Promise<DockerDriver>,
): Promise<WorkspaceCopy> {
  const limits = { maxBytes: bound.maxBytes, maxEntries: LIMITS.copyBackMaxEntries };
  const enc = src.enclosure;
  try {
    if (enc?.workspaceMode === "copy") {
      const r = await (await driverFor(enc)).snapshotWorkspace(enc, into, limits);
      return {
        files: r.files,
        bytes: r.bytes,
        notCopied: skippedLines(r.skipped, r.skippedTotal),
        from: "the enclosure's /workspace (copy mode, paused while read)",
      };
    }
    const copy = (): ReturnType<typeof copyTree> => copyTree(src.workspacePath, into, limits);
    const r = enc && enc.state !== "dead" ? await (await driverFor(enc)).whilePaused(enc, copy) : await copy();
    return {
      files: r.files,
      bytes: r.bytes,
      notCopied: skippedLines(r.skipped, r.skippedTotal),
      from: enc ? "the enclosure's host folder (bind mode, paused while read)" : "the host folder",
    };
  } catch (err) {
    if (err instanceof ArchiveLimitError) throw boundError(err, bound, bareId(src.id));
    throw err;
  }
}
