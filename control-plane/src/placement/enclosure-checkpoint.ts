// A pause that keeps an enclosure's memory: the engine's checkpoint API (experimental in Docker 20.10)
// under gVisor. The checkpoint goes into the container's own folder in the engine's data root, which
// only the engine writes; Docker restores it only into the same container (its --checkpoint-dir is
// broken), so a pause keeps the container and a resume starts it from the checkpoint. Everything goes
// through the engine's API, so a remote engine works the same (its size is then not known here).
import { readdir, lstat } from "node:fs/promises";
import { join } from "node:path";
import type Docker from "dockerode";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import type { EnclosureRecord } from "../model/conversation.js";

/** Every pause's checkpoint is named with this prefix and its time: each restore uploads a checkpoint
 * under its own name (the engine keys its upload to containerd by the checkpoint's folder). */
export const PAUSE_CHECKPOINT_PREFIX = "enclave-pause-";

export function pauseCheckpointName(atMs: number): string {
  return `${PAUSE_CHECKPOINT_PREFIX}${atMs.toString(36)}`;
}

/** The engine's checkpoint calls, which dockerode has but its types do not name. */
interface CheckpointCalls {
  createCheckpoint(opts: { CheckpointID: string; Exit: boolean }): Promise<unknown>;
  listCheckpoint(opts: Record<string, never>): Promise<unknown>;
  deleteCheckpoint(name: string, opts: Record<string, never>): Promise<unknown>;
  // Options with _query go to the URL only: a JSON body on start is refused by API 1.24 and later.
  start(opts: { _query: { checkpoint: string }; _body: Record<string, never> }): Promise<unknown>;
}

function calls(container: Docker.Container): CheckpointCalls {
  return container as unknown as CheckpointCalls;
}

function engineMessage(err: unknown): string {
  const e = err as { json?: { message?: string }; message?: string };
  return (e.json?.message ?? e.message ?? String(err)).trim();
}

/** Refuses a pause that cannot keep memory here: runc (CRIU fails on this kernel), or an engine without checkpoints. */
export async function checkCheckpointable(docker: Docker, record: EnclosureRecord): Promise<void> {
  if (record.runtime !== "runsc") {
    throw new EnclaveError(
      "checkpoint_unsupported",
      `the enclosure runs under ${record.runtime}, whose checkpoints (CRIU) fail on this kernel, so a pause cannot keep its memory; ` +
        "start the enclosure with runtime runsc (gVisor) to pause it with its kernels intact, or stop it (its workspace stays)",
    );
  }
  const info = (await docker.info()) as { ExperimentalBuild?: boolean };
  if (!info.ExperimentalBuild) {
    throw new EnclaveError(
      "checkpoint_unsupported",
      'the Docker engine does not offer checkpoints: they need `"experimental": true` in its daemon.json and a restart of dockerd ' +
        "(`make docker` sets it; SIGHUP does not reload it)",
    );
  }
}

/** Checkpoints the container and lets it exit; a refusal (an open TCP connection inside under gVisor) leaves it running. */
export async function takeCheckpoint(container: Docker.Container, name: string): Promise<void> {
  // Checkpoints left by earlier pauses whose resume then succeeded but could not remove them.
  for (const old of await listCheckpoints(container).catch(() => [])) {
    if (old.startsWith(PAUSE_CHECKPOINT_PREFIX))
      await calls(container)
        .deleteCheckpoint(old, {})
        .catch(() => undefined);
  }
  try {
    await calls(container).createCheckpoint({ CheckpointID: name, Exit: true });
  } catch (err) {
    throw new EnclaveError("checkpoint_failed", `the engine could not checkpoint the enclosure: ${engineMessage(err)}`);
  }
}

/** Waits (bounded) until the engine reports the container stopped; true when it did. */
export async function waitStopped(container: Docker.Container, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await container.inspect();
    if (!info.State.Running) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, LIMITS.checkpointPollMs));
  }
}

/**
 * Waits (bounded) until no exec runs in the container: a live exec session makes a restore fail, and
 * each relay's exec ends on its own once its connection is closed. Returns the ones still running.
 */
export async function waitExecsEnded(docker: Docker, container: Docker.Container, timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ids = (await container.inspect()).ExecIDs ?? [];
    const running: string[] = [];
    for (const id of ids) {
      const state = await docker
        .getExec(id)
        .inspect()
        .catch(() => undefined);
      if (state?.Running) running.push(id);
    }
    if (!running.length || Date.now() > deadline) return running;
    await new Promise((r) => setTimeout(r, LIMITS.checkpointPollMs));
  }
}

/** The checkpoints the engine holds for the container. */
export async function listCheckpoints(container: Docker.Container): Promise<string[]> {
  const answer: unknown = await calls(container).listCheckpoint({});
  // With none the engine answers `null` without a JSON content type, which arrives as raw bytes.
  const list: unknown = Buffer.isBuffer(answer) ? JSON.parse(answer.toString("utf8") || "null") : answer;
  if (!Array.isArray(list)) return [];
  return list.map((c: { Name?: unknown }) => (typeof c.Name === "string" ? c.Name : "")).filter(Boolean);
}

/** Starts the container from its checkpoint; the engine's refusal is `resume_failed` with its words. */
/**
 * Starts the container from its checkpoint; the engine's refusal is `resume_failed` with its words.
 * A refusal is tried again a few times while the container stays stopped: the engine's upload of the
 * checkpoint to containerd can collide with the cleanup of the previous one ("already exists").
 */
export async function restoreCheckpoint(container: Docker.Container, name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await calls(container).start({ _query: { checkpoint: name }, _body: {} });
      return;
    } catch (err) {
      const stillStopped = await container.inspect().then(
        (i) => !i.State.Running,
        () => false,
      );
      if (!stillStopped || attempt >= LIMITS.restoreAttempts) {
        throw new EnclaveError(
          "resume_failed",
          `the engine could not restore the enclosure from its checkpoint${attempt > 1 ? ` (${attempt} tries)` : ""}: ${engineMessage(err)}`,
        );
      }
      await new Promise((r) => setTimeout(r, LIMITS.restoreRetryMs * attempt));
    }
  }
}

export async function removeCheckpoint(container: Docker.Container, name: string): Promise<void> {
  await calls(container).deleteCheckpoint(name, {});
}

/**
 * The checkpoint's size on a local engine's disk (its folder under the engine's data root); 0 when it
 * cannot be read from here (a remote engine, a control plane without the rights).
 */
export async function checkpointBytes(docker: Docker, containerId: string, name: string, remote: boolean): Promise<number> {
  if (remote) return 0;
  try {
    const root = ((await docker.info()) as { DockerRootDir?: string }).DockerRootDir;
    if (!root) return 0;
    return await treeBytes(join(root, "containers", containerId, "checkpoints", name));
  } catch {
    return 0;
  }
}

async function treeBytes(path: string): Promise<number> {
  const st = await lstat(path);
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const name of await readdir(path)) total += await treeBytes(join(path, name));
  return total;
}
