// The warm pool: enclosures started ahead of any conversation, per profile (the settings a start
// request resolves to: image, limits, runtime, workspace mode, user, relaxations), so that a start
// whose settings match one is a claim rather than a container start. A claim attaches the
// conversation's workspace (copy mode: the archive goes into the running container's workspace
// volume; bind mode: a mount onto the enclosure's slot, see pool-slot.ts), tells the agent its
// conversation, and takes the enclosure out of the pool for good: it is stopped like any other and
// never handed to anyone else. The pool refills in the background, one start at a time.
//
// Pool containers carry LABELS.owner and POOL_LABEL and no conversation label, so a start-up sweep
// (this one, and the orphan reaping that removes containers no record names) tells them apart. The
// pool is drained (everything unclaimed removed) when the control plane closes.
import { createHash, randomBytes } from "node:crypto";
import type Docker from "dockerode";
import type { AgentClient } from "../agent-client/agent-client.js";
import { type WarmPoolConfig, type EnclosureRequest, type EnclosureSettings, IN_ENCLOSURE } from "../model/enclosure.js";
import type { ConversationRecord, EnclosureRecord } from "../model/conversation.js";
import { LIMITS } from "../limits.js";
import type { DockerDriver, StartedEnclosure } from "./docker-driver.js";
import { LABELS, POOL_LABEL } from "../model/labels.js";
import { containerSpec, withOwnUid } from "./enclosure-settings.js";
import { withAgentVolume } from "./agent-volume.js";
import { withInjection } from "./agent-injection.js";
import { ownImageAgentNode } from "./agent-node.js";
import { giveTree } from "./give-tree.js";
import { attachWorkspace, canMountSlots, makeSlot, releaseSlot, sweepSlots } from "./pool-slot.js";
import { createWorkspaceDisk, removeWorkspaceDisk, type WorkspaceDisk } from "./workspace-disk.js";
import { packFolder, putFolder } from "./workspace-transfer.js";
import { runscRegistration } from "./gvisor-runtime.js";
import { realpathSync } from "node:fs";
import { SandboxUids } from "./sandbox-uids.js";
import { join } from "node:path";

export interface WarmPoolOptions {
  owner: string;
  agentBundleDir: string;
  /** Copy mode's volume images. */
  diskImageDir: string;
  /** The control plane's folder for bind-mode slots (under its data folder). */
  slotRoot: string;
  /** Enclosures' own uids: each member holds one from its start, and its conversation keeps it. */
  uids: SandboxUids;
  log: (line: string) => void;
}

interface Member {
  key: string;
  container: Docker.Container;
  base: EnclosureRecord;
  client: AgentClient;
  settings: EnclosureSettings;
  disk?: WorkspaceDisk;
  slot?: string;
  createdAtMs: number;
  /** The agent's pid, from its first answer. */
  agentPid: number;
  /** Who holds its uid until a conversation claims it (a spare's owner name). */
  uidOwner: string;
}

/** The profile key of resolved settings: equal settings, equal key. */
export function profileKey(s: EnclosureSettings): string {
  return createHash("sha256").update(JSON.stringify(s)).digest("hex").slice(0, 16);
}

export interface PoolCounts {
  profile: string;
  ready: number;
  wanted: number;
}

export class WarmPool {
  private readonly ready = new Map<string, Member[]>();
  private filling: Promise<void> | undefined;
  private closed = false;
  private backoffMs: number = LIMITS.warmPoolRetryMs;
  /** Cuts a back-off wait short when the pool is drained. */
  private wake: (() => void) | undefined;
  private readonly profiles: Array<{ req: EnclosureRequest; key?: string }>;

  constructor(
    private readonly docker: Docker,
    private readonly driver: DockerDriver,
    private readonly config: WarmPoolConfig,
    private readonly opts: WarmPoolOptions,
  ) {
    this.profiles = config.profiles.map((req) => ({ req }));
  }

  get enabled(): boolean {
    return this.config.size > 0 && !this.closed;
  }

  /** How many are ready per profile; for the console, status and tests. */
  counts(): PoolCounts[] {
    return this.profiles
      .filter((p) => p.key)
      .map((p) => ({ profile: p.key as string, ready: this.ready.get(p.key as string)?.length ?? 0, wanted: this.config.size }));
  }

  /**
   * Removes what a previous run of this data folder left of its pool: containers and copy-mode
   * volumes labelled as this owner's pool that no record names, and bind-mode slots no record uses.
   */
  async sweepLeftovers(inUse: { containers: ReadonlySet<string>; slots: ReadonlySet<string> }): Promise<void> {
    const filters = { label: [`${LABELS.owner}=${this.opts.owner}`, POOL_LABEL] };
    for (const c of await this.docker.listContainers({ all: true, filters })) {
      if (inUse.containers.has(c.Id)) continue;
      await this.driver.reap(c.Id).then(
        () => this.opts.log(`warm pool: removed ${c.Id.slice(0, 12)}, left unclaimed by a previous run`),
        (err: unknown) => this.opts.log(`warm pool: cannot remove leftover ${c.Id.slice(0, 12)}: ${(err as Error).message}`),
      );
    }
    const volumes = (await this.docker.listVolumes({ filters })).Volumes ?? [];
    for (const v of volumes) {
      if (await this.volumeInUse(v.Name)) continue;
      const device = (v.Options ?? {}).device ?? "";
      let dir = this.opts.diskImageDir;
      try {
        dir = realpathSync(dir);
      } catch {
        // No image folder: nothing to remove there.
      }
      await removeWorkspaceDisk(this.docker, { volume: v.Name, image: join(dir, `${v.Name}.ext4`), loopDevice: device, limitBytes: 0 }).catch((err: unknown) =>
        this.opts.log(`warm pool: cannot remove leftover volume ${v.Name}: ${(err as Error).message}`),
      );
    }
    for (const slot of await sweepSlots(this.opts.slotRoot, inUse.slots)) this.opts.log(`warm pool: released slot ${slot} left by a previous run`);
  }

  private async volumeInUse(volume: string): Promise<boolean> {
    const users = await this.docker.listContainers({ all: true, filters: { volume: [volume] } });
    return users.length > 0;
  }

  /** Starts filling in the background (no-op when the size is 0). */
  fill(): void {
    if (!this.enabled || this.filling) return;
    this.filling = this.fillPass().finally(() => {
      this.filling = undefined;
    });
  }

  private async fillPass(): Promise<void> {
    for (const p of this.profiles) {
      let settings: EnclosureSettings;
      try {
        settings = this.driver.settingsFor(p.req);
      } catch (err) {
        this.opts.log(`warm pool: profile ${JSON.stringify(p.req)} is not valid (${(err as Error).message}); it is not kept warm`);
        continue;
      }
      if (settings.workspaceMode === "bind" && !canMountSlots()) {
        if (!p.key) this.opts.log("warm pool: bind-mode profiles need root to mount workspaces into running enclosures; bind-mode starts are cold");
        p.key = profileKey(settings);
        continue;
      }
      const key = profileKey(settings);
      p.key = key;
      while (!this.closed && (this.ready.get(key)?.length ?? 0) < this.config.size) {
        try {
          const m = await this.launch(settings, key);
          if (this.closed) {
            await this.discard(m);
            return;
          }
          const list = this.ready.get(key) ?? [];
          list.push(m);
          this.ready.set(key, list);
          this.backoffMs = LIMITS.warmPoolRetryMs;
        } catch (err) {
          this.opts.log(`warm pool: could not start an enclosure for profile ${key} (${(err as Error).message}); trying again in ${this.backoffMs} ms`);
          await new Promise<void>((resolve) => {
            const t = setTimeout(resolve, this.backoffMs);
            this.wake = () => {
              clearTimeout(t);
              resolve();
            };
          });
          this.wake = undefined;
          this.backoffMs = Math.min(this.backoffMs * 2, LIMITS.warmPoolRetryMaxMs);
        }
      }
    }
  }

  private async launch(profile: EnclosureSettings, key: string): Promise<Member> {
    if (profile.runtime === "runsc") await runscRegistration(this.docker);
    const name = `enclave-pool-${key.slice(0, 8)}-${Date.now().toString(36)}${randomBytes(3).toString("hex")}`;
    // Made before any conversation exists, so it holds a uid as a spare; the claiming conversation keeps it.
    const uidOwner = SandboxUids.spare(name);
    const settings = withOwnUid(profile, this.opts.uids.acquire(uidOwner), false);
    const labels = { [LABELS.managed]: "true", [LABELS.owner]: this.opts.owner, [POOL_LABEL]: key };
    let slot: string | undefined;
    let disk: WorkspaceDisk | undefined;
    let container: Docker.Container | undefined;
    let client: AgentClient | undefined;
    try {
      if (settings.workspaceMode === "bind") slot = await makeSlot(this.opts.slotRoot, name);
      if (settings.workspaceMode === "copy") {
        disk = await createWorkspaceDisk(this.docker, {
          dir: this.opts.diskImageDir,
          name: `${name}-workspace`,
          limitBytes: settings.diskLimitBytes,
          uid: settings.uid,
          gid: settings.gid,
          labels,
        });
      }
      // The pool holds Enclave's own image only: its agent runs on the pinned Node like a cold start's.
      const node = await ownImageAgentNode(this.docker, this.opts.log);
      const spec = withInjection(containerSpec(settings, { workspace: slot ?? "", workspaceVolume: disk?.volume }, labels), node ?? { env: [], mounts: [] });
      // Slave propagation: the workspace mounted onto the slot later shows inside; nothing inside propagates out.
      if (slot && spec.HostConfig?.Binds)
        spec.HostConfig.Binds = spec.HostConfig.Binds.map((b) => (b === `${slot}:${IN_ENCLOSURE.workspace}` ? `${b}:rslave` : b));
      container = await this.docker.createContainer({
        name,
        ...(settings.agentDelivery === "mount" ? withAgentVolume(spec, await this.driver.agentVolume()) : spec),
      });
      await container.start();
      const base = this.driver.startingRecord(container.id, settings, disk);
      const createdAtMs = base.startedAtMs;
      client = await this.driver.client(base);
      const agentPid = await this.driver.waitReady(container, client);
      return { key, container, base, client, settings, disk, slot, createdAtMs, agentPid, uidOwner };
    } catch (err) {
      client?.close();
      if (container) await this.driver.reap(container.id).catch(() => undefined);
      if (disk) await removeWorkspaceDisk(this.docker, disk).catch(() => undefined);
      if (slot) await releaseSlot(slot).catch(() => undefined);
      this.opts.uids.release(uidOwner);
      throw err;
    }
  }

  /**
   * A ready enclosure of the profile `req` resolves to, given to `conv` for good; undefined when none
   * is ready (or attaching failed: that one is removed and the caller starts one cold).
   */
  async claim(conv: ConversationRecord, req: EnclosureRequest): Promise<StartedEnclosure | undefined> {
    if (!this.enabled) return undefined;
    let key: string;
    try {
      key = profileKey(this.driver.settingsFor(req));
    } catch {
      return undefined; // The cold start reports what is wrong with the request.
    }
    const member = this.ready.get(key)?.shift();
    if (!member) {
      this.fill();
      return undefined;
    }
    // The member's own settings: the profile's with the uid it holds.
    const settings = member.settings;
    try {
      if (member.slot) {
        // Independent (the same inodes either way), so side by side; both settle before a failure
        // is acted on, so that discarding the member finds the mount if there is one.
        const done = await Promise.allSettled([giveTree(conv.workspacePath, settings.uid, settings.gid), attachWorkspace(member.slot, conv.workspacePath)]);
        for (const d of done) if (d.status === "rejected") throw d.reason;
      } else if (settings.workspaceMode === "copy") {
        await putFolder(member.container, packFolder(conv.workspacePath, settings.uid, settings.gid), IN_ENCLOSURE.workspace, settings.diskLimitBytes);
      }
      await member.client.assign(conv.id);
      this.opts.uids.transfer(member.uidOwner, conv.id);
      const claimedAtMs = Date.now();
      const record: EnclosureRecord = {
        ...member.base,
        startedAtMs: claimedAtMs,
        state: "running",
        pool: { profile: key, createdAtMs: member.createdAtMs, claimedAtMs, ...(member.slot ? { slot: member.slot } : {}) },
      };
      return { record, client: member.client, agentPid: member.agentPid };
    } catch (err) {
      this.opts.log(
        `warm pool: claiming ${member.container.id.slice(0, 12)} for ${conv.id} failed (${(err as Error).message}); it is removed and the enclosure starts cold`,
      );
      await this.discard(member);
      return undefined;
    } finally {
      // The replacement starts once this claim is answered: creating a container alongside it would
      // slow the claim that a caller waits for.
      this.fill();
    }
  }

  private async discard(m: Member): Promise<void> {
    m.client.close();
    await this.driver
      .reap(m.container.id)
      .catch((err: unknown) => this.opts.log(`warm pool: cannot remove ${m.container.id.slice(0, 12)}: ${(err as Error).message}`));
    if (m.disk) await removeWorkspaceDisk(this.docker, m.disk).catch(() => undefined);
    if (m.slot) await releaseSlot(m.slot).catch(() => undefined);
    this.opts.uids.release(m.uidOwner);
  }

  /** Stops filling and removes every unclaimed enclosure. */
  async drain(): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.filling;
    const all = [...this.ready.values()].flat();
    this.ready.clear();
    await Promise.all(all.map((m) => this.discard(m)));
  }
}

/** What a claimed pool enclosure leaves on the host once its container is gone: its bind-mode slot. */
export async function releasePoolLeftovers(record: EnclosureRecord): Promise<void> {
  if (record.pool?.slot) await releaseSlot(record.pool.slot);
}

/** Where bind-mode slots live: a folder of the control plane's data folder. */
export function warmPoolSlotRoot(dataDir: string): string {
  return join(dataDir, "warm-pool");
}
