// Docker placement: starts a conversation's enclosure from the enclave image with hardened defaults,
// waits for its agent to answer Health on the bind-mounted unix socket, tells a dead one from a live
// one, and removes everything it made when stopped (container, volume, socket folder).
import { chmodSync, chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Docker from "dockerode";
import { agentImageTag, imageExists, imageTags } from "../../../images/pipeline/image-set.js";
import { AgentClient } from "../agent-client/agent-client.js";
import type { ConversationRecord, EnclosureRecord } from "../conversations/conversation-store.js";
import type { EnclosureDefaults } from "../config.js";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { containerSpec, type EnclosureRequest, IN_ENCLOSURE, resolveSettings } from "./enclosure-settings.js";
import { type RunscRegistration, runscRegistration } from "./gvisor-runtime.js";
import { type GvisorView, readGvisorView } from "../audit/gvisor-view.js";
import { type HostView, readHostView } from "../audit/host-view.js";
import { chownTree, mirrorArchiveInto, packFolder } from "./workspace-transfer.js";

export const LABELS = {
  managed: "org.enclave.managed",
  conversation: "org.enclave.conversation",
  socketDir: "org.enclave.socket-dir",
} as const;

export interface ContainerFate {
  running: boolean;
  detail: string;
}

/** Docker's non-TTY log stream multiplexes stdout and stderr behind 8-byte frame headers. */
function demuxLogs(buf: Buffer): string {
  const out: Buffer[] = [];
  let at = 0;
  while (at + 8 <= buf.length) {
    const size = buf.readUInt32BE(at + 4);
    out.push(buf.subarray(at + 8, at + 8 + size));
    at += 8 + size;
  }
  return Buffer.concat(out).toString("utf8");
}

export function enclosureWhere(record: Pick<EnclosureRecord, "containerId">): string {
  return `enclosure ${record.containerId.slice(0, 12)}`;
}

export class DockerDriver {
  constructor(
    private readonly docker: Docker,
    private readonly agentBundleDir: string,
    private readonly defaults: EnclosureDefaults,
  ) {}

  client(record: EnclosureRecord): AgentClient {
    return new AgentClient(join(record.socketDir, "agent.sock"), () => enclosureWhere(record));
  }

  private defaultImage(delivery: string): string {
    const tags = imageTags();
    return delivery === "baked" ? agentImageTag(tags.runtime) : tags.runtime;
  }

  async start(conv: ConversationRecord, req: EnclosureRequest): Promise<{ record: EnclosureRecord; client: AgentClient }> {
    const settings = resolveSettings(req, this.defaults, this.defaultImage(req.agentDelivery || "mount"));
    if (!(await imageExists(this.docker, settings.image))) {
      throw new EnclaveError("placement_unavailable", `image ${settings.image} is not built here: run \`make images\` (or \`enclave images build\`) first`);
    }
    if (settings.runtime === "runsc") await runscRegistration(this.docker);
    const socketDir = mkdtempSync(join(tmpdir(), "enclave-sock-"));
    chownSync(socketDir, settings.uid, settings.gid);
    chmodSync(socketDir, 0o700);
    let container: Docker.Container | undefined;
    try {
      if (settings.workspaceMode === "bind") await chownTree(conv.workspacePath, settings.uid, settings.gid);
      container = await this.docker.createContainer({
        name: `enclave-${conv.id}-${Date.now().toString(36)}`,
        ...containerSpec(
          settings,
          { socketDir, workspace: conv.workspacePath, agentBundleDir: this.agentBundleDir },
          { [LABELS.managed]: "true", [LABELS.conversation]: conv.id, [LABELS.socketDir]: socketDir },
        ),
      });
      if (settings.workspaceMode === "copy") {
        await container.putArchive(packFolder(conv.workspacePath, settings.uid, settings.gid), { path: IN_ENCLOSURE.workspace });
      }
      await container.start();
      const record: EnclosureRecord = {
        containerId: container.id,
        image: settings.image,
        socketDir,
        startedAtMs: Date.now(),
        limits: { memoryBytes: settings.memoryBytes, cpus: settings.cpus, pids: settings.pidsLimit },
        workspaceMode: settings.workspaceMode,
        runtime: settings.runtime,
        relaxations: settings.relaxations,
        user: `${settings.uid}:${settings.gid}`,
        state: "starting",
        detail: "",
      };
      const client = this.client(record);
      await this.waitReady(container, client);
      record.state = "running";
      return { record, client };
    } catch (err) {
      if (container) await container.remove({ force: true, v: true }).catch(() => undefined);
      rmSync(socketDir, { recursive: true, force: true });
      throw err;
    }
  }

  private async waitReady(container: Docker.Container, client: AgentClient): Promise<void> {
    const deadline = Date.now() + LIMITS.agentReadyTimeoutMs;
    for (;;) {
      try {
        await client.health(1_000);
        return;
      } catch {
        // Not up yet: see whether the container is still there to come up.
      }
      const info = await container.inspect();
      if (!info.State.Running) {
        const logs = demuxLogs((await container.logs({ stdout: true, stderr: true, tail: 30 })) as Buffer);
        throw new EnclaveError("placement_unavailable", `the enclosure exited before its agent answered (exit code ${info.State.ExitCode}${info.State.OOMKilled ? ", out of memory" : ""}):\n${logs}`);
      }
      if (Date.now() > deadline) {
        throw new EnclaveError("placement_unavailable", `the enclosure's agent did not answer within ${LIMITS.agentReadyTimeoutMs} ms`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The engine's full view of the container, for the egress audit's outside half. */
  containerInfo(record: EnclosureRecord): Promise<Docker.ContainerInspectInfo> {
    return this.docker.getContainer(record.containerId).inspect();
  }

  /** The host kernel's view of the container's processes, from its first process (State.Pid). */
  hostView(info: Docker.ContainerInspectInfo): Promise<HostView> {
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
      const info = await this.docker.getContainer(record.containerId).inspect();
      if (info.State.Running) return { running: true, detail: "" };
      const why = info.State.OOMKilled ? "killed for running out of memory" : `exited with code ${info.State.ExitCode}`;
      return { running: false, detail: `the container ${why} at ${info.State.FinishedAt}` };
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      if (status === 404) return { running: false, detail: "the container was removed from outside Enclave" };
      throw new EnclaveError("placement_unavailable", `the Docker engine did not answer about ${enclosureWhere(record)}: ${(err as Error).message}`);
    }
  }

  /** Removes the enclosure; in copy mode its /workspace is first mirrored back to the host folder. */
  async stop(conv: ConversationRecord, record: EnclosureRecord): Promise<void> {
    const container = this.docker.getContainer(record.containerId);
    try {
      if (record.workspaceMode === "copy") {
        const archive = await container.getArchive({ path: `${IN_ENCLOSURE.workspace}/.` });
        await mirrorArchiveInto(conv.workspacePath, archive, ".");
      }
      await container.remove({ force: true, v: true });
    } catch (err) {
      if ((err as { statusCode?: number }).statusCode !== 404) throw err;
    } finally {
      rmSync(record.socketDir, { recursive: true, force: true });
    }
  }

  /** Calls onDeath when a managed container dies without being stopped through the driver. */
  async watchDeaths(onDeath: (containerId: string) => void): Promise<() => void> {
    const stream = (await this.docker.getEvents({
      filters: { type: ["container"], event: ["die", "destroy"], label: [`${LABELS.managed}=true`] },
    })) as NodeJS.ReadableStream & { destroy?: () => void };
    let buffered = "";
    stream.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      let nl;
      while ((nl = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        try {
          const ev = JSON.parse(line) as { id?: string };
          if (ev.id) onDeath(ev.id);
        } catch {
          // A partial or foreign line.
        }
      }
    });
    stream.on("error", () => undefined);
    return () => stream.destroy?.();
  }

  async managedContainers(): Promise<Array<{ id: string; conversation: string; running: boolean }>> {
    const list = await this.docker.listContainers({ all: true, filters: { label: [`${LABELS.managed}=true`] } });
    return list.map((c) => ({ id: c.Id, conversation: c.Labels[LABELS.conversation] ?? "", running: c.State === "running" }));
  }
}
