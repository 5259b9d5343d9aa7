// Diagnostics for files the harness wrote with its own tools: the same sync and the same per-run
// ledger as Enclave's write tools, so a diagnostic reported after a harness write is not reported
// again after an Enclave write, and the reverse. A file the run has not seen before reports every
// diagnostic it has (they are all new to the ledger) — unless the harness announced the write first
// (beforeWrite): then the file's diagnostics as they were become the baseline.
import { LspDiagnosticsState, type LspDiagnostic } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { SyncedFileState } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { EnclaveError } from "../../errors.js";
import { LIMITS } from "../../limits.js";
import type { AgentEndpoint } from "../../placement/agent-endpoint.js";
import type { Run } from "../../model/run.js";
import type { DiagnosticsLedger } from "./diagnostics-ledger.js";
import { describe, diagnosticsWaitMs, seedLedger } from "./diagnostics-on-write.js";

export interface SyncedFile {
  path: string;
  /** Fresh, late, no server, deleted or failed (detail says why). */
  state: SyncedFileState;
  servers: string[];
  /** Diagnostics new to the run's ledger (fresh files only). */
  newDiagnostics: LspDiagnostic[];
  detail: string;
}

export interface SyncWritesResult {
  /** What Enclave's write tools append to their result for the same files ("" when no server checks them). */
  text: string;
  files: SyncedFile[];
}

const STATES: Record<LspDiagnosticsState, SyncedFileState> = {
  [LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_UNSPECIFIED]: SyncedFileState.SYNCED_FILE_STATE_UNSPECIFIED,
  [LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_FRESH]: SyncedFileState.SYNCED_FILE_STATE_FRESH,
  [LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_LATE]: SyncedFileState.SYNCED_FILE_STATE_LATE,
  [LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_NO_SERVER]: SyncedFileState.SYNCED_FILE_STATE_NO_SERVER,
  [LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_DELETED]: SyncedFileState.SYNCED_FILE_STATE_DELETED,
  [LspDiagnosticsState.LSP_DIAGNOSTICS_STATE_FAILED]: SyncedFileState.SYNCED_FILE_STATE_FAILED,
  [LspDiagnosticsState.UNRECOGNIZED]: SyncedFileState.UNRECOGNIZED,
};

export async function syncWrites(
  run: Run,
  paths: readonly string[],
  agent: () => Promise<AgentEndpoint>,
  ledger: DiagnosticsLedger,
  opts: { beforeWrite?: boolean } = {},
): Promise<SyncWritesResult> {
  if (!run.resources.includes("lsp")) {
    throw new EnclaveError(
      "failed_precondition",
      `run \`${run.id}\` is not wired with the lsp resource: open the run with resources including "lsp" to get diagnostics`,
    );
  }
  const wanted = [...new Set(paths)];
  if (wanted.length === 0) throw new EnclaveError("invalid_arguments", "paths is empty: give the workspace-relative files the harness wrote");
  if (wanted.length > LIMITS.syncWritesMaxPaths)
    throw new EnclaveError("invalid_arguments", `paths names ${wanted.length} files; at most ${LIMITS.syncWritesMaxPaths} per call`);
  const blank = wanted.find((p) => !p.trim() || p.includes("\0"));
  if (blank !== undefined) throw new EnclaveError("invalid_arguments", "paths has an empty entry (or one with a NUL byte)");
  const { client } = await agent();
  const res = await client.lspSync({ paths: wanted, waitMs: diagnosticsWaitMs() });
  if (opts.beforeWrite) {
    seedLedger(res.files, ledger, { run });
    return { text: "", files: res.files.map((f) => ({ path: f.path, state: STATES[f.state], servers: f.servers, newDiagnostics: [], detail: f.detail })) };
  }
  const fresh = new Map<string, LspDiagnostic[]>();
  const text = describe(res.files, ledger, { run }, new Set(), (path, d) => fresh.set(path, d));
  return {
    text,
    files: res.files.map((f) => ({ path: f.path, state: STATES[f.state], servers: f.servers, newDiagnostics: fresh.get(f.path) ?? [], detail: f.detail })),
  };
}
