// What a conversation costs now, read from where each figure is kept rather than estimated: the
// placement's cgroup (the host sandbox's, or the enclosure's container's on a local engine), the
// Docker engine's stats for an enclosure, and the workspace's size (a bounded walk of the host
// folder, or copy mode's volume). Nothing is started to measure: a conversation with no agent
// running spends no CPU, and says so.
import { within } from "@enclave/proto/wait.js";
import type { ConversationRecord, EnclosureRecord } from "../model/conversation.js";
import type { CgroupUsage, ConversationUsage, EngineUsage, WorkspaceUsage } from "../model/usage.js";
import type { DockerDriver } from "../placement/docker-driver.js";
import type { SandboxCgroup } from "../placement/sandbox-cgroup.js";
import { type CgroupFolders, containerCgroupFolders, readCgroupUsage } from "./cgroup-usage.js";
import { volumeUsage, walkWorkspace, type WalkBounds, WALK_BOUNDS, WorkspaceSizes } from "./workspace-size.js";

/** An engine that does not answer within this is reported as such; the rest of the usage is not held up. */
const ENGINE_DEADLINE_MS = 3000;
/** How long a caller waits for its workspace's measure (a walk's time bound, and its turn). */
const WORKSPACE_WAIT_MS = 3000;

export interface UsageSources {
  /** The host agent's sandbox cgroup (undefined: no agent runs). */
  hostAgent(conversationId: string): { cgroup?: SandboxCgroup } | undefined;
  driver(engine: string | undefined): Promise<DockerDriver>;
}

/** Which parts to read: the metrics skip the engine's stats (one request per enclosure per scrape). */
export interface UsageParts {
  /** "remote": only for an engine on another machine, whose cgroups are not readable here. */
  engine: boolean | "remote";
  /** Only a workspace measure already kept; none is started (undefined: none kept). */
  keptWorkspaceOnly?: boolean;
}

const why = (err: unknown): string => (err instanceof Error ? err.message : String(err));

const LATE = Symbol("late");

async function deadline<T>(work: Promise<T>, what: string): Promise<T> {
  const got = await within(work, ENGINE_DEADLINE_MS, LATE);
  if (got === LATE) throw new Error(`${what} did not answer within ${ENGINE_DEADLINE_MS} ms`);
  return got;
}

export class UsageReader {
  private readonly sizes: WorkspaceSizes;

  constructor(
    private readonly sources: UsageSources,
    private readonly bounds: WalkBounds = WALK_BOUNDS,
    ttlMs?: number,
  ) {
    this.sizes = new WorkspaceSizes(ttlMs);
  }

  async read(conv: ConversationRecord, parts: UsageParts = { engine: true }): Promise<ConversationUsage> {
    const measuredAtMs = Date.now();
    const enc = conv.enclosure;
    const [placement, workspace] = await Promise.all([enc ? this.enclosure(enc, parts) : this.host(conv.id), this.workspace(conv, parts)]);
    return { measuredAtMs, ...placement, ...workspace };
  }

  /** Drops kept workspace measures of conversations no longer there. */
  forgetExcept(ids: ReadonlySet<string>): void {
    this.sizes.forgetExcept(ids);
  }

  private async host(id: string): Promise<Pick<ConversationUsage, "cgroup" | "cgroupUnavailable" | "engine" | "engineUnavailable">> {
    const engineUnavailable = "host placement: no engine runs it";
    const agent = this.sources.hostAgent(id);
    if (!agent)
      return { cgroupUnavailable: "no host agent runs for the conversation now (the next call starts one): nothing of it is running", engineUnavailable };
    if (!agent.cgroup)
      return { cgroupUnavailable: "the host sandbox has no cgroup (ENCLAVE_HOST_CGROUPS=off): its CPU and memory are not counted apart", engineUnavailable };
    const folders = agent.cgroup.usageFolders();
    const source = folders.cpuacct
      ? "cgroup v1 of the host sandbox (cpuacct, memory, pids)"
      : "cgroup v1 of the host sandbox (memory, pids; no cpuacct controller is mounted, so no CPU time)";
    try {
      return { cgroup: await readCgroupUsage(folders, source), cgroupUnavailable: "", engineUnavailable };
    } catch (err) {
      return { cgroupUnavailable: `the host sandbox's cgroup could not be read: ${why(err)}`, engineUnavailable };
    }
  }

  private async enclosure(
    enc: EnclosureRecord,
    parts: UsageParts,
  ): Promise<Pick<ConversationUsage, "cgroup" | "cgroupUnavailable" | "engine" | "engineUnavailable">> {
    if (enc.state !== "running") {
      const gone = `the enclosure is ${enc.state}${enc.detail ? ` (${enc.detail})` : ""}: nothing of it is running`;
      return { cgroupUnavailable: gone, engineUnavailable: gone };
    }
    let driver: DockerDriver;
    try {
      driver = await deadline(this.sources.driver(enc.engine), "the Docker engine");
    } catch (err) {
      const none = `the enclosure's engine is not reachable: ${why(err)}`;
      return { cgroupUnavailable: none, engineUnavailable: none };
    }
    const askEngine = parts.engine === true || (parts.engine === "remote" && driver.engine.remote);
    const engine: Promise<{ engine?: EngineUsage; engineUnavailable: string }> = askEngine
      ? deadline(driver.engineStats(enc), `engine \`${driver.engine.name}\``).then(
          (e) => ({ engine: e, engineUnavailable: "" }),
          (err: unknown) => ({ engineUnavailable: `the engine's stats could not be read: ${why(err)}` }),
        )
      : Promise.resolve({ engineUnavailable: "not asked" });
    const cgroup: Promise<{ cgroup?: CgroupUsage; cgroupUnavailable: string }> = driver.engine.remote
      ? Promise.resolve({
          cgroupUnavailable: `engine \`${driver.engine.name}\` is on another machine: its cgroups are not readable here (see the engine's figures)`,
        })
      : this.containerCgroup(driver, enc);
    return { ...(await cgroup), ...(await engine) };
  }

  private async containerCgroup(driver: DockerDriver, enc: EnclosureRecord): Promise<{ cgroup?: CgroupUsage; cgroupUnavailable: string }> {
    try {
      const info = await deadline(driver.containerInfo(enc), `engine \`${driver.engine.name}\``);
      const folders: CgroupFolders = await containerCgroupFolders(info.Id, info.State.Pid);
      const runtime = enc.runtime === "runsc" ? "; under runsc this counts gVisor's own kernel with the enclosure's processes" : "";
      const which = folders.version === "v1" ? "cgroup v1 of the container (cpuacct, memory, pids)" : "cgroup v2 of the container";
      return { cgroup: await readCgroupUsage(folders, `${which}${runtime}`), cgroupUnavailable: "" };
    } catch (err) {
      return { cgroupUnavailable: `the container's cgroup could not be read on this host: ${why(err)}` };
    }
  }

  private async workspace(conv: ConversationRecord, parts: UsageParts): Promise<{ workspace?: WorkspaceUsage; workspaceUnavailable: string }> {
    const enc = conv.enclosure;
    // Copy mode: while the enclosure runs, the workspace is its volume (the host folder is what the
    // last stop copied back).
    const volume = enc?.workspaceMode === "copy" && enc.disk && enc.state === "running";
    const how = async (): Promise<WorkspaceUsage> => {
      if (volume) {
        const driver = await deadline(this.sources.driver(enc.engine), "the Docker engine");
        const mount = await deadline(driver.workspaceVolumeMount(enc), `engine \`${driver.engine.name}\``);
        if (!mount) throw new Error(`copy mode's workspace volume is on engine \`${driver.engine.name}\`'s machine, not measurable here`);
        return volumeUsage(mount);
      }
      return walkWorkspace(conv.workspacePath, this.bounds);
    };
    const key = `${conv.id}\0${volume ? "volume" : "walk"}`;
    try {
      if (parts.keptWorkspaceOnly) {
        const kept = this.sizes.latest(key, how);
        return kept ? { workspace: kept, workspaceUnavailable: "" } : { workspaceUnavailable: "not measured yet (measured in the background)" };
      }
      const got = await within(this.sizes.measure(key, how), WORKSPACE_WAIT_MS, LATE);
      if (got !== LATE) return { workspace: got, workspaceUnavailable: "" };
      // Other walks go first (at most a few run at once): the last measure, or none yet.
      const last = this.sizes.settled(key);
      return last
        ? { workspace: last, workspaceUnavailable: "" }
        : { workspaceUnavailable: "being measured, after other workspaces' walks: ask again in a moment" };
    } catch (err) {
      return { workspaceUnavailable: `the workspace could not be measured: ${why(err)}` };
    }
  }
}
