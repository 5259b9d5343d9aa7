// The per-run ledger of diagnostics already reported to a run, so a write reports only what it newly
// introduced. Keyed, per file, by severity + code + message — never by position, so a diagnostic that
// merely moved is not new. Each file's entry is replaced by what the server reports now: a diagnostic
// that was fixed leaves the ledger, and if it comes back it is new again. Counted as a multiset, so a
// second copy of an existing error is reported.
import type { LspDiagnostic } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import type { Run } from "../../model/run.js";

export function ledgerKey(d: Pick<LspDiagnostic, "severity" | "code" | "message">): string {
  return `${d.severity}\u0000${d.code}\u0000${d.message}`;
}

export class DiagnosticsLedger {
  // Keyed by the run object, so a closed run's ledger goes with it.
  private readonly runs = new WeakMap<Run, Map<string, Map<string, number>>>();

  /** Records what `file` has now and returns the diagnostics not already reported to the run. */
  update(run: Run, file: string, current: readonly LspDiagnostic[]): LspDiagnostic[] {
    const files = this.runs.get(run) ?? new Map<string, Map<string, number>>();
    this.runs.set(run, files);
    const before = files.get(file) ?? new Map<string, number>();
    const now = new Map<string, number>();
    const fresh: LspDiagnostic[] = [];
    for (const d of current) {
      const key = ledgerKey(d);
      const seen = (now.get(key) ?? 0) + 1;
      now.set(key, seen);
      if (seen > (before.get(key) ?? 0)) fresh.push(d);
    }
    files.set(file, now);
    return fresh;
  }

  /** Whether the run has been told (or seeded with) the file's diagnostics. */
  has(run: Run, file: string): boolean {
    return this.runs.get(run)?.has(file) ?? false;
  }

  /**
   * Records what `file` has before a run first changes it, reporting nothing: what a write then
   * reports as new is new relative to just before it, not to the run's start.
   */
  seed(run: Run, file: string, current: readonly LspDiagnostic[]): void {
    this.update(run, file, current);
  }

  /** A deleted file has no diagnostics any more. */
  forget(run: Run, file: string): void {
    this.runs.get(run)?.delete(file);
  }
}
