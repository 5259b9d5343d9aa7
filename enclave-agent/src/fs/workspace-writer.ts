// The one way the agent changes workspace files: write, edit, patch, lsp rename, structural apply.
// A change runs in the workspace's turn (write-lock.ts), its reads and checks included, and commits
// its files through the journal (write-journal.ts), so a set of files ends all written or none, a
// crash of the agent included.
import { AgentError } from "../errors.js";
import type { FileChange } from "./staged-changes.js";
import { commitJournalled, recoverJournals } from "./write-journal.js";
import { withWriteLock } from "./write-lock.js";
import type { WorkspacePaths } from "./workspace-paths.js";

export type { FileChange } from "./staged-changes.js";

/** Writes (content) or deletes (null) every file given, all or none. */
export type Commit = (changes: readonly FileChange[]) => Promise<void>;

export class WorkspaceWriter {
  private readonly committedListeners = new Set<(rels: readonly string[]) => void>();

  /** journalDir: the state folder's journal/ folder, where a commit keeps what a crash needs to finish it. */
  constructor(
    readonly paths: WorkspacePaths,
    private readonly journalDir: string,
  ) {}

  /** Runs `run` in the workspace's turn; `commit` is valid only until `run` settles. */
  change<T>(run: (commit: Commit) => Promise<T>): Promise<T> {
    return withWriteLock(this.paths.root, async () => {
      let open = true;
      const commit: Commit = (changes) => {
        if (!open) return Promise.reject(new AgentError("internal", "a commit outside its change's turn was refused"));
        return commitJournalled(this.paths, this.journalDir, changes).then(() => {
          const rels = changes.map((c) => c.rel);
          for (const l of this.committedListeners) l(rels);
        });
      };
      try {
        return await run(commit);
      } finally {
        open = false;
      }
    });
  }

  /** Told the workspace-relative paths of every committed change (caches of file contents listen). */
  onCommitted(listener: (rels: readonly string[]) => void): () => void {
    this.committedListeners.add(listener);
    return () => this.committedListeners.delete(listener);
  }

  /**
   * Finishes or undoes the changes a crash interrupted; call it before serving. Returns lines for
   * the agent's log.
   */
  recover(): Promise<string[]> {
    return recoverJournals(this.paths, this.journalDir);
  }
}
