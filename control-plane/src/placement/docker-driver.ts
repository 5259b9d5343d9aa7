// Docker placement: starts a conversation's enclosure from the enclave image with hardened defaults,
// reaches its agent through the engine's exec (exec-relay.ts), waits for it to answer Health, tells a
// dead one from a live one, and removes everything it made when stopped (container, volume).
import type { EngineUsage } from "../model/usage.js";
import { engineUsageOf } from "../usage/engine-stats.js";
import {
  checkCheckpointable,
  checkpointBytes,
  listCheckpoints,
  removeCheckpoint,
  restoreCheckpoint,
  takeCheckpoint,
  waitExecsEnded,
  waitStopped,
} from "./enclosure-checkpoint.js";
import { createHash } from "node:crypto";
import { once } from "node:events";
import { join, resolve } from "node:path";
import { Readable, Writable } from "node:stream";
import type Docker from "dockerode";
import { agentImageTag, imageExists, imageTags } from "../image-set/image-tags.js";
import { ensurePinnedImage, registryImageReference } from "../image-set/registry-pull.js";
import { AgentClient } from "../agent-client/agent-client.js";
import type { ConversationRecord, EnclosureRecord } from "../model/conversation.js";
import { type EnclosureDefaults, type EnclosureRequest, type EnclosureSettings, IN_ENCLOSURE } from "../model/enclosure.js";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { sleep } from "@enclave/proto/wait.js";
import { containerSpec, RELAY_COMMAND, resolveSettings, withOwnUid } from "./enclosure-settings.js";
import { DeathWatch, type EventStream } from "./death-watch.js";
import { ExecRelay } from "./exec-relay.js";
import { createWorkspaceDisk, diskOfVolume, removeWorkspaceDisk, type WorkspaceDisk } from "./workspace-disk.js";
import { giveTree } from "./give-tree.js";
import { withInjection } from "./agent-injection.js";
import { runPostCreate } from "./devcontainer.js";
import { devcontainerTag, planEnclosureImage } from "./enclosure-image.js";
import { agentVolume, withAgentVolume } from "./agent-volume.js";
import { copyBackFromContainer, type MirrorLimits, type NotCopied, packFolder, putFolder, whilePaused } from "./workspace-transfer.js";
import { type UnpackReport, unpackTar } from "../fs/archive-unpack.js";
import { runscRegistration } from "./gvisor-runtime.js";
import type { RunscRegistration, GvisorView, HostView } from "../model/enclosure-views.js";
import { readGvisorView } from "./gvisor-view.js";
import { readHostView } from "./host-view.js";
import { log as logger } from "../observability/log.js";
import { withinDeadline } from "./engines.js";
import { DEFAULT_ENGINE, type EngineIdentity, LOCAL_ENGINE } from "../model/engine.js";
import type { ImageSupply } from "./image-supply.js";
import { type ImageAccess, ImageRule } from "./image-access.js";
import { checkImageReference } from "./image-reference.js";
import { createPlainWorkspaceVolume } from "./remote-workspace.js";
import { LABELS } from "../model/labels.js";

/** A control plane's name on the engine: derived from its data folder, so it is the same after a restart. */
export function ownerId(dataDir: string): string {
  return createHash("sha256").update(resolve(dataDir)).digest("hex").slice(0, 16);
}

/** An enclosure whose agent has answered: its record, a client to it, and the agent's pid. */
export interface StartedEnclosure {
  record: EnclosureRecord;
  client: AgentClient;
  agentPid: number;
}

/** What a stop could not bring back into the workspace (copy mode), and what it could not remove. */
export interface StopReport {
  notCopiedBack: string[];
  leftovers: string[];
}

export interface ContainerFate {
  running: boolean;
  detail: string;
}

/**
 * A container's logs as text: Docker's non-TTY log stream multiplexes stdout and stderr behind 8-byte
 * frame headers, which docker-modem's demuxStream reads (and passes a TTY stream through as it is).
 */
export async function demuxedLogs(modem: Docker["modem"], logs: Buffer): Promise<string> {
  const out: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      out.push(chunk);
      done();
    },
  });
  const source = Readable.from([logs], { objectMode: false });
  const ended = once(source, "end");
  modem.demuxStream(source, sink, sink);
  await ended;
  return Buffer.concat(out).toString("utf8");
}

export function enclosureWhere(record: Pick<EnclosureRecord, "containerId"> & { engine?: string }): string {
  const engine = record.engine && record.engine !== DEFAULT_ENGINE ? ` on engine ${record.engine}` : "";
  return `enclosure ${record.containerId.slice(0, 12)}${engine}`;
}

/**
 * A start on a remote engine: the workspace goes by copy (the default there), since the engine
 * cannot see a host folder; bind mode asked for by name is refused.
 */
function remoteRequest(req: EnclosureRequest, engine: string): EnclosureRequest {
  if (req.workspaceMode === "bind") {
    throw new EnclaveError(
      "remote_engine_unsupported",
      `workspace_mode bind mounts a folder of this machine into the enclosure, and engine \`${engine}\` is remote (reached over TCP): it cannot see that folder. ` +
        "Use workspace_mode copy (the default on a remote engine), or start on a local engine.",
    );
  }
  return { ...req, workspaceMode: "copy" };
}

export interface DockerDriverOptions {
  docker: Docker;
  agentBundleDir: string;
  defaults: EnclosureDefaults;
  /** The control plane's private folder (mode 700) for the relays' local sockets. */
  socketRoot: string;
  /** This control plane's ownerId, put on every container it makes. */
  owner: string;
  log?: (line: string) => void;
  /** Which engine this is; a remote one shares no filesystem and no kernel view with this machine. */
  engine?: EngineIdentity;
  /** Brings a missing image to this engine (remote engines); none: a missing image is an error. */
  images?: ImageSupply;
}

export class DockerDriver {
  private readonly docker: Docker;
  private readonly agentBundleDir: string;
  private readonly defaults: EnclosureDefaults;
  /** The control plane's private folder (mode 700) for the relays' local sockets. */
  private readonly socketRoot: string;
  /** This control plane's ownerId, put on every container it makes. */
  private readonly owner: string;
  private readonly log: (line: string) => void;
  /** Which engine this is; a remote one shares no filesystem and no kernel view with this machine. */
  readonly engine: EngineIdentity;
  /** Brings a missing image to this engine (remote engines); none: a missing image is an error. */
  private readonly images: ImageSupply | undefined;

  constructor(opts: DockerDriverOptions) {
    this.docker = opts.docker;
    this.agentBundleDir = opts.agentBundleDir;
    this.defaults = opts.defaults;
    this.socketRoot = opts.socketRoot;
    this.owner = opts.owner;
    this.log = opts.log ?? ((line) => logger().warn(line));
    this.engine = opts.engine ?? LOCAL_ENGINE;
    this.images = opts.images;
  }

  /** The engine's own report of itself (running containers: its load). */
  engineInfo(): Promise<{ ContainersRunning?: number }> {
    return this.docker.info() as Promise<{ ContainersRunning?: number }>;
  }

  /** A client whose every connection is a fresh relay into the container (no host path involved). */
  async client(record: EnclosureRecord): Promise<AgentClient> {
    const short = record.containerId.slice(0, 12);
    const relay = await ExecRelay.open(join(this.socketRoot, `e-${short}.sock`), {
      container: this.docker.getContainer(record.containerId),
      demux: (stream, stdout, stderr) => this.docker.modem.demuxStream(stream, stdout, stderr),
      user: record.user,
      command: RELAY_COMMAND,
      log: (line) => this.log(`${enclosureWhere(record)}: ${line.slice(0, LIMITS.relayLogLineChars)}`),
    });
    return new AgentClient(
      relay.socketPath,
      () => enclosureWhere(record),
      () => relay.close(),
    );
  }

  /** The settings a start request resolves to here (the warm pool keys its enclosures by them). */
  settingsFor(req: EnclosureRequest): EnclosureSettings {
    return resolveSettings(req, this.defaults, this.defaultImage(req.agentDelivery || "mount"));
  }

  /** The shared read-only volume of the agent bundle (see agent-volume.ts), filled on first need. */
  /** What is recorded of an enclosure this engine just started, before its agent answers. */
  startingRecord(containerId: string, settings: EnclosureSettings, disk: WorkspaceDisk | undefined): EnclosureRecord {
    return {
      containerId,
      image: settings.image,
      startedAtMs: Date.now(),
      limits: { memoryBytes: settings.memoryBytes, cpus: settings.cpus, pids: settings.pidsLimit, diskBytes: settings.diskLimitBytes },
      ...(disk ? { disk } : {}),
      workspaceMode: settings.workspaceMode,
      runtime: settings.runtime,
      relaxations: settings.relaxations,
      user: `${settings.uid}:${settings.gid}`,
      engine: this.engine.name,
      state: "starting",
      detail: "",
    };
  }

  agentVolume(): Promise<string> {
    return agentVolume(this.docker, this.agentBundleDir, this.owner, LABELS.owner);
  }

  private defaultImage(delivery: string): string {
    const tags = imageTags();
    const local = delivery === "baked" ? agentImageTag(tags.runtime) : tags.runtime;
    return this.defaults.imageRegistry ? registryImageReference(local, this.defaults.imageRegistry) : local;
  }

  /** Enclave's own images as this engine runs them (each delivery's), and the operator's default. */
  private ownImages(): string[] {
    const own = [this.defaults.image];
    for (const delivery of ["mount", "baked"]) {
      try {
        own.push(this.defaultImage(delivery));
      } catch {
        // Not built (no agent bundle) or not pushed to the registry: not startable either.
      }
    }
    return own.filter(Boolean);
  }

  /** What a start may name (image-access.ts), for the conversation's tenant. */
  imageRule(): ImageRule {
    return new ImageRule(this.defaults.allowedImages, () => this.ownImages());
  }

  /** Starts the conversation's enclosure running as `uid` (its own, see withOwnUid). */
  async start(conv: ConversationRecord, req: EnclosureRequest, access: ImageAccess, uid: number): Promise<StartedEnclosure> {
    if (req.image) checkImageReference(req.image, "image");
    if (this.engine.remote) req = remoteRequest(req, this.engine.name);
    const defaultImage = this.defaultImage(req.agentDelivery || "mount");
    const rule = this.imageRule();
    // A remote engine gets the image it lacks from this one (a dev container's is built there).
    const wanted = req.image || this.defaults.image || defaultImage;
    // Only Enclave's own image is ever pulled, by digest, from the operator's registry; an image a
    // caller names is only looked up (a pull would have the engine dial the reference's host).
    if (!req.devcontainer && (wanted === defaultImage || wanted === this.defaults.image))
      await ensurePinnedImage(this.docker, wanted, this.defaults.imageRegistry);
    // An image outside the caller's rule is not sent either: it goes on to answer as a missing one.
    const sendable = !req.image || rule.mayStart(req.image, "caller", access);
    if (this.images && !req.devcontainer && sendable && !(await imageExists(this.docker, wanted)))
      await this.images.ensure(this.docker, wanted, this.engine.name);
    if (!req.image && !req.devcontainer && !this.defaults.image && !(await imageExists(this.docker, defaultImage))) {
      throw new EnclaveError("placement_unavailable", `image ${defaultImage} is not built here: run \`make images\` (or \`enclave images build\`) first`);
    }
    // An image of the caller's or the workspace's dev container: the image, its user, the Node injected.
    const plan = await planEnclosureImage(
      this.docker,
      conv,
      req,
      (r) => resolveSettings(r, this.defaults, defaultImage),
      this.log,
      (image, namedBy) => rule.check(image, namedBy, access),
    );
    const settings = withOwnUid(plan.settings, uid, plan.userNamed);
    if (settings.runtime === "runsc") await runscRegistration(this.docker);
    let container: Docker.Container | undefined;
    let client: AgentClient | undefined;
    let disk: WorkspaceDisk | undefined;
    const name = `enclave-${conv.id}-${Date.now().toString(36)}`;
    const labels = { [LABELS.managed]: "true", [LABELS.conversation]: conv.id, [LABELS.owner]: this.owner };
    // Bind mode hands the workspace to the enclosure's user while the container is made (chown is a
    // process of its own, ~15 ms of a start); only the start waits for it.
    const owned = settings.workspaceMode === "bind" ? giveTree(conv.workspacePath, settings.uid, settings.gid) : Promise.resolve();
    owned.catch(() => undefined);
    try {
      if (settings.workspaceMode === "copy" && this.engine.remote) {
        disk = await createPlainWorkspaceVolume(this.docker, {
          name: `${name}-workspace`,
          labels,
          image: settings.image,
          uid: settings.uid,
          gid: settings.gid,
        });
      } else if (settings.workspaceMode === "copy") {
        disk = await createWorkspaceDisk(this.docker, {
          dir: this.defaults.diskImageDir,
          name: `${name}-workspace`,
          limitBytes: settings.diskLimitBytes,
          uid: settings.uid,
          gid: settings.gid,
          labels,
        });
      }
      let spec = withInjection(
        containerSpec(settings, { workspace: conv.workspacePath, workspaceVolume: disk?.volume, imageVolumes: plan.imageVolumes }, labels),
        plan.injection,
      );
      if (settings.agentDelivery === "mount") spec = withAgentVolume(spec, await this.agentVolume());
      container = await this.docker.createContainer({ name, ...spec });
      if (settings.workspaceMode === "copy") {
        await putFolder(container, packFolder(conv.workspacePath, settings.uid, settings.gid), IN_ENCLOSURE.workspace, settings.diskLimitBytes);
      }
      await owned;
      await container.start();
      const record: EnclosureRecord = {
        ...this.startingRecord(container.id, settings, disk),
        ...(plan.notes.length ? { notes: plan.notes } : {}),
      };
      client = await this.client(record);
      const agentPid = await this.waitReady(container, client);
      await runPostCreate(this.docker, container, record.user, plan.postCreate);
      record.state = "running";
      return { record, client, agentPid };
    } catch (err) {
      client?.close();
      if (container) await container.remove({ force: true, v: true }).catch(() => undefined);
      if (disk) await removeWorkspaceDisk(this.docker, disk).catch(() => undefined);
      throw err;
    }
  }

  /** The relay inside waits for the agent's socket, so the first Health answers as soon as the agent
   * listens; between attempts, a container that exited is reported with its last lines. Returns the
   * agent's pid, as the agent reports it. */
  async waitReady(container: Docker.Container, client: AgentClient): Promise<number> {
    const deadline = Date.now() + LIMITS.agentReadyTimeoutMs;
    for (;;) {
      try {
        return (await client.health(Math.max(1, Math.min(LIMITS.agentReadyProbeMs, deadline - Date.now())))).pid;
      } catch {
        // Not up yet: see whether the container is still there to come up.
      }
      const info = await container.inspect();
      if (!info.State.Running) {
        const logs = await demuxedLogs(this.docker.modem, (await container.logs({ stdout: true, stderr: true, tail: 30 })) as Buffer);
        throw new EnclaveError(
          "placement_unavailable",
          `the enclosure exited before its agent answered (exit code ${info.State.ExitCode}${info.State.OOMKilled ? ", out of memory" : ""}):\n${logs}`,
        );
      }
      if (Date.now() > deadline) {
        throw new EnclaveError("placement_unavailable", `the enclosure's agent did not answer within ${LIMITS.agentReadyTimeoutMs} ms`);
      }
    }
  }

  /** The engine's full view of the container, for the egress audit's outside half. */
  containerInfo(record: EnclosureRecord): Promise<Docker.ContainerInspectInfo> {
    return this.docker.getContainer(record.containerId).inspect();
  }

  /** The host kernel's view of the container's processes, from its first process (State.Pid). */
  hostView(info: Docker.ContainerInspectInfo): Promise<HostView> {
    // A remote engine's pids are another machine's: reading this machine's /proc for them would
    // describe some unrelated process.
    if (this.engine.remote)
      return Promise.reject(
        new EnclaveError(
          "remote_engine_unsupported",
          `not available on a remote engine (\`${this.engine.name}\`): the control plane cannot read that machine's /proc and cgroup files`,
        ),
      );
    return readHostView(info.Id, info.State.Pid);
  }

  /** gVisor's kernel's view of an enclosure under runsc. */
  gvisorView(record: EnclosureRecord): Promise<GvisorView> {
    return readGvisorView(this.docker, record.containerId, Number(record.user.split(":")[0]));
  }

  runscRegistration(): Promise<RunscRegistration> {
    return runscRegistration(this.docker);
  }

  /** Whether the container still runs, and if not, why it stopped. */
  async inspect(record: EnclosureRecord): Promise<ContainerFate> {
    try {
      const asked = this.docker.getContainer(record.containerId).inspect();
      const info = this.engine.remote ? await withinDeadline(asked, `engine \`${this.engine.name}\``) : await asked;
      if (info.State.Running) return { running: true, detail: "" };
      const why = info.State.OOMKilled ? "killed for running out of memory" : `exited with code ${info.State.ExitCode}`;
      return { running: false, detail: `the container ${why} at ${info.State.FinishedAt}` };
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      if (status === 404) return { running: false, detail: "the container was removed from outside Enclave" };
      // An engine on another machine that stopped answering takes its enclosures with it: they are
      // reported dead (stop, then start again on an engine that answers) rather than hanging calls.
      if (this.engine.remote && status === undefined) {
        return { running: false, detail: `its engine \`${this.engine.name}\` does not answer (${(err as Error).message})` };
      }
      throw new EnclaveError("placement_unavailable", `the Docker engine did not answer about ${enclosureWhere(record)}: ${(err as Error).message}`);
    }
  }

  /** One sample of the engine's stats for the container (one-shot: the engine does not wait for a second sample). */
  async engineStats(record: EnclosureRecord): Promise<EngineUsage> {
    const stats = await this.docker.getContainer(record.containerId).stats({ stream: false, "one-shot": true });
    return engineUsageOf(stats, this.engine.name);
  }

  /**
   * Where copy mode's workspace volume is mounted on this machine (the engine's local driver mounts
   * it there while a container uses it); undefined in bind mode or on a remote engine.
   */
  async workspaceVolumeMount(record: EnclosureRecord): Promise<string | undefined> {
    if (!record.disk || this.engine.remote) return undefined;
    const info = (await this.docker.getVolume(record.disk.volume).inspect()) as Docker.VolumeInspectInfo;
    return info.Mountpoint || undefined;
  }

  /** Refuses, before anything is touched, a pause this enclosure cannot take with its memory. */
  checkCheckpointable(record: EnclosureRecord): Promise<void> {
    return checkCheckpointable(this.docker, record);
  }

  /**
   * Checkpoints the enclosure (its memory, to the engine's disk) and lets it exit. Its relays'
   * connections must be closed first: a live exec makes the restore fail. A refusal leaves it running.
   */
  async checkpoint(record: EnclosureRecord, name: string): Promise<{ bytes: number }> {
    const container = this.docker.getContainer(record.containerId);
    const left = await waitExecsEnded(this.docker, container, LIMITS.checkpointExecsEndMs);
    if (left.length) {
      throw new EnclaveError(
        "checkpoint_failed",
        `${left.length} exec session${left.length === 1 ? "" : "s"} still run${left.length === 1 ? "s" : ""} in the enclosure after its agent channel was closed ` +
          `(a live exec makes a restore fail); it keeps running, try the pause again`,
      );
    }
    await takeCheckpoint(container, name);
    if (!(await waitStopped(container, LIMITS.checkpointStopMs))) {
      throw new EnclaveError("checkpoint_failed", `the engine took the checkpoint but the container still ran after ${LIMITS.checkpointStopMs} ms`);
    }
    return { bytes: await checkpointBytes(this.docker, record.containerId, name, this.engine.remote) };
  }

  /** Starts the paused enclosure from its checkpoint, into the same container; `resume_failed` says why not. */
  async restore(record: EnclosureRecord, name: string): Promise<void> {
    const container = this.docker.getContainer(record.containerId);
    let running: boolean;
    try {
      running = (await container.inspect()).State.Running;
    } catch (err) {
      const gone = (err as { statusCode?: number }).statusCode === 404;
      throw new EnclaveError(
        "resume_failed",
        gone ? "the container was removed from outside Enclave, and its checkpoint with it" : `the engine did not answer: ${(err as Error).message}`,
      );
    }
    if (running) {
      throw new EnclaveError(
        "resume_failed",
        "the container runs again without its checkpoint (started from outside Enclave): its memory is not the paused one",
      );
    }
    const names = await listCheckpoints(container).catch((err: unknown) => {
      throw new EnclaveError("resume_failed", `the engine would not list the container's checkpoints: ${(err as Error).message}`);
    });
    if (!names.includes(name)) {
      throw new EnclaveError("resume_failed", `the engine holds no checkpoint \`${name}\` for the container any more (removed from outside Enclave)`);
    }
    await restoreCheckpoint(container, name);
  }

  /** Stops a container a failed resume left running (its agent never answered): back to paused, its checkpoint kept. */
  async haltAfterFailedResume(record: EnclosureRecord): Promise<void> {
    const container = this.docker.getContainer(record.containerId);
    await container.kill().catch(() => undefined);
    await waitStopped(container, LIMITS.checkpointStopMs).catch(() => false);
  }

  /** Removes the checkpoint once the enclosure runs from it again; what would not go is said. */
  async dropCheckpoint(record: EnclosureRecord, name: string): Promise<string | undefined> {
    try {
      await removeCheckpoint(this.docker.getContainer(record.containerId), name);
      return undefined;
    } catch (err) {
      return `checkpoint ${name} of ${enclosureWhere(record)}: ${(err as Error).message}`;
    }
  }

  /** The checkpoints the engine holds for the enclosure's container (for tests and the status). */
  checkpoints(record: EnclosureRecord): Promise<string[]> {
    return listCheckpoints(this.docker.getContainer(record.containerId));
  }

  /**
   * The enclosure's /workspace as it is now, unpacked into `into` (an empty folder) by the careful
   * unpacker, the container paused meanwhile so nothing changes under the copy (a fork of a copy-mode
   * enclosure: the host folder holds only what the last stop brought back).
   */
  snapshotWorkspace(record: EnclosureRecord, into: string, limits: { maxBytes: number; maxEntries: number }): Promise<UnpackReport> {
    const container = this.docker.getContainer(record.containerId);
    return whilePaused(container, async () => {
      const archive = (await container.getArchive({ path: `${IN_ENCLOSURE.workspace}/.` })) as unknown as Readable;
      return unpackTar(archive, into, {
        depthBelowRoot: 0,
        stripPrefix: ".",
        maxBytes: limits.maxBytes,
        maxApparentBytes: LIMITS.copyBackMaxApparentBytes,
        maxEntries: limits.maxEntries,
      });
    });
  }

  /** Runs `use` with the enclosure paused, so the workspace it writes holds still (a fork of a bind-mode enclosure). */
  whilePaused<T>(record: EnclosureRecord, use: () => Promise<T>): Promise<T> {
    return whilePaused(this.docker.getContainer(record.containerId), use);
  }

  /** The engine's view of copy mode's workspace volume, for the egress audit; undefined in bind mode. */
  async workspaceVolumeInfo(record: EnclosureRecord): Promise<Docker.VolumeInspectInfo | undefined> {
    if (!record.disk) return undefined;
    return (await this.docker.getVolume(record.disk.volume).inspect()) as Docker.VolumeInspectInfo;
  }

  /**
   * Removes the enclosure; in copy mode its /workspace is first copied back into the host folder (the
   * container paused meanwhile), unless `force`. A copy back that fails (too large, an engine error)
   * changes nothing in the host folder and does not keep the enclosure: what was not copied back is
   * reported, and the enclosure is removed all the same, so no content can make it unstoppable.
   */
  async stop(conv: ConversationRecord, record: EnclosureRecord, opts: { force?: boolean } = {}): Promise<StopReport> {
    if (this.engine.remote && record.state === "dead" && !(await this.answers())) return this.forgetUnreachable(record);
    const container = this.docker.getContainer(record.containerId);
    let notCopiedBack: string[] = [];
    if (record.workspaceMode === "copy" && opts.force) {
      notCopiedBack = ["(everything): a forced stop does not copy the enclosure's /workspace back"];
    } else if (record.workspaceMode === "copy") {
      const limits = {
        maxBytes: this.defaults.copyBackMaxBytes,
        maxApparentBytes: LIMITS.copyBackMaxApparentBytes,
        maxEntries: LIMITS.copyBackMaxEntries,
        setting: "ENCLAVE_COPY_BACK_MAX_BYTES (default LIMITS.copyBackMaxBytes)",
      };
      let result: NotCopied | undefined;
      let failure: string | undefined;
      try {
        try {
          result = await copyBackFromContainer(container, conv.workspacePath, limits);
        } catch (err) {
          if ((err as { statusCode?: number }).statusCode !== 404) throw err;
          result = record.disk ? await this.copyBackFromVolume(conv, record, limits) : undefined;
        }
      } catch (err) {
        failure = (err as Error).message;
      }
      if (failure !== undefined) {
        notCopiedBack = [`(everything): the copy back failed, so the host folder keeps what it held before the enclosure started: ${failure}`];
      } else if (result) {
        notCopiedBack = result.skipped.slice(0, LIMITS.notCopiedBackListed).map((s) => `${s.path}: ${s.why}`);
        const unlisted = result.skippedTotal - notCopiedBack.length;
        if (unlisted > 0) notCopiedBack.push(`… and ${unlisted} more`);
      } else {
        notCopiedBack = ["(everything): the container was removed from outside Enclave, so its /workspace could not be copied back"];
      }
    }
    await removeContainer(container);
    // The enclosure is gone by now: a volume that will not go is said, not a reason to keep it recorded.
    const leftovers: string[] = [];
    if (record.disk) {
      await removeWorkspaceDisk(this.docker, record.disk).catch((err: unknown) => {
        leftovers.push(`workspace volume ${record.disk?.volume} (${record.disk?.loopDevice}, ${record.disk?.image}): ${(err as Error).message}`);
      });
    }
    return { notCopiedBack, leftovers };
  }

  /** Whether the engine answers a ping within the deadline. */
  private async answers(): Promise<boolean> {
    return withinDeadline(this.docker.ping(), `engine \`${this.engine.name}\``).then(
      () => true,
      () => false,
    );
  }

  /**
   * A dead enclosure whose remote engine is gone: nothing can be copied back or removed, and keeping
   * the record would leave the conversation stuck; the stop says what was lost and what may remain there.
   */
  private forgetUnreachable(record: EnclosureRecord): StopReport {
    const where = `engine \`${this.engine.name}\` does not answer`;
    return {
      notCopiedBack: record.workspaceMode === "copy" ? [`(everything): ${where}, so the enclosure's /workspace could not be copied back`] : [],
      leftovers: [
        `container ${record.containerId.slice(0, 12)}${record.disk ? ` and volume ${record.disk.volume}` : ""} on ${where}; remove them there if it comes back`,
      ],
    };
  }

  /** The container is gone but its workspace volume is not: read it through a container never started. */
  private async copyBackFromVolume(conv: ConversationRecord, record: EnclosureRecord, limits: MirrorLimits): Promise<NotCopied> {
    const reader = await this.docker.createContainer({
      Image: record.image,
      // Never started; the engine still wants a command.
      Entrypoint: ["/bin/true"],
      Labels: { [LABELS.managed]: "true", [LABELS.conversation]: conv.id, [LABELS.owner]: this.owner },
      NetworkDisabled: true,
      HostConfig: { NetworkMode: "none", Mounts: [{ Type: "volume", Source: record.disk?.volume ?? "", Target: IN_ENCLOSURE.workspace }] },
    });
    try {
      return await copyBackFromContainer(reader, conv.workspacePath, limits);
    } finally {
      // With its anonymous volumes (one per VOLUME of the image); the named workspace volume stays.
      await reader.remove({ force: true, v: true }).catch(() => undefined);
    }
  }

  /**
   * Calls onDeath when a managed container dies without being stopped through the driver; the watch
   * survives failures of the events stream (see death-watch.ts).
   */
  watchDeaths(onDeath: (containerId: string) => void): DeathWatch {
    return new DeathWatch(
      async (since) =>
        (await this.docker.getEvents({
          ...(since !== undefined ? { since } : {}),
          filters: { type: ["container"], event: ["die", "destroy"], label: [`${LABELS.managed}=true`] },
        })) as EventStream,
      onDeath,
      this.log,
    );
  }

  /** The containers this control plane made that still exist, running or not. */
  async managedContainers(): Promise<Array<{ id: string; conversation: string; running: boolean }>> {
    const asked = this.docker.listContainers({
      all: true,
      filters: { label: [`${LABELS.managed}=true`, `${LABELS.owner}=${this.owner}`] },
    });
    // A remote engine that vanished must not hold up a start-up's recovery.
    const list = this.engine.remote ? await withinDeadline(asked, `engine \`${this.engine.name}\``) : await asked;
    return list.map((c) => ({ id: c.Id, conversation: c.Labels[LABELS.conversation] ?? "", running: c.State === "running" }));
  }

  /** Copy-mode workspace disks this control plane made for a conversation (a pool's carry none). */
  async managedDisks(): Promise<Array<{ conversation: string; disk: WorkspaceDisk }>> {
    const asked = this.docker.listVolumes({ filters: { label: [`${LABELS.managed}=true`, `${LABELS.owner}=${this.owner}`] } });
    const list = this.engine.remote ? await withinDeadline(asked, `engine \`${this.engine.name}\``) : await asked;
    const out: Array<{ conversation: string; disk: WorkspaceDisk }> = [];
    for (const v of list.Volumes ?? []) {
      const conversation = v.Labels?.[LABELS.conversation];
      if (conversation) out.push({ conversation, disk: diskOfVolume(v) });
    }
    return out;
  }

  /** Removes a container nothing refers to any more, with its anonymous volumes and its workspace disk. */
  async reap(containerId: string, disk?: WorkspaceDisk): Promise<void> {
    await removeContainer(this.docker.getContainer(containerId));
    if (disk) await this.reapDisk(disk);
  }

  /**
   * Removes the image built for the conversation's dev container, by the tag only our build gives it
   * (a label could be copied by any Dockerfile or base image); one still in use stays (said).
   */
  async removeBuiltImage(conversationKey: string): Promise<string | undefined> {
    const tag = devcontainerTag(conversationKey);
    try {
      await this.docker.getImage(tag).remove();
      return undefined;
    } catch (err) {
      return (err as { statusCode?: number }).statusCode === 404 ? undefined : `image ${tag} on ${this.engine.name}: ${(err as Error).message}`;
    }
  }

  /** Removes a workspace disk nothing refers to any more: its volume, loop device and image. */
  reapDisk(disk: WorkspaceDisk): Promise<void> {
    return removeWorkspaceDisk(this.docker, disk);
  }
}

/**
 * Removes a container and its anonymous volumes; one already gone is fine. The engine can refuse for
 * a moment while the runtime is still tearing the sandbox down (gVisor: "is zombie and can not be
 * killed"; a removal already in progress): such refusals are retried a few times before they count.
 */
async function removeContainer(container: Docker.Container): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await container.remove({ force: true, v: true });
      return;
    } catch (err) {
      const code = (err as { statusCode?: number }).statusCode;
      if (code === 404) return;
      if ((code !== 500 && code !== 409) || attempt >= LIMITS.containerRemoveAttempts) throw err;
      await sleep(LIMITS.containerRemoveRetryMs * attempt);
    }
  }
}
