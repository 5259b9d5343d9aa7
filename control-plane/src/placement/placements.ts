// Where a conversation's calls go, decided per call: a running enclosure's agent, or else the
// conversation's host agent. Enclosures start and stop only through start() and stop(); a dead one
// is reported, never replaced silently by the host.
import type { AgentClient } from "../agent-client/agent-client.js";
import type { AuditLog } from "../audit/audit-log.js";
import type { ConversationStore } from "../conversations/conversation-store.js";
import type { ConversationRecord, EnclosureRecord } from "../model/conversation.js";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import type { AgentEndpoint, AgentPrepare } from "./agent-endpoint.js";
import type { DeathWatch } from "./death-watch.js";
import { type DockerDriver, enclosureWhere, type StartedEnclosure } from "./docker-driver.js";
import type { EnclosureRequest } from "../model/enclosure.js";
import type { EnginePort } from "./engine-choice.js";
import type { HostAgents } from "./host-agents.js";
import { noteHostAgentRunning, noteHostAgentStopped } from "./host-agent-loss.js";
import type { PlacementPort } from "../tools/tool-dispatcher.js";
import { log as logger, scopeOf } from "../observability/log.js";
import { releasePoolLeftovers, type WarmPool } from "./warm-pool.js";
import { bareId } from "../conversations/conversation-keys.js";
import { tenantOf } from "../tenants/implicit-tenant.js";
import { devcontainerTag } from "./enclosure-image.js";
import { type EnclosureCaller, type ImageAccess, imageAccessFor } from "./image-access.js";
import { checkImageReference } from "./image-reference.js";
import { RefusalAudit } from "../audit/refusal-audit.js";
import { SandboxUids } from "./sandbox-uids.js";

function deadError(conv: ConversationRecord, enc: EnclosureRecord): EnclaveError {
  return new EnclaveError(
    "enclosure_dead",
    `the enclosure of conversation \`${bareId(conv.id)}\` (${enclosureWhere(enc)}) is dead: ${enc.detail || "it stopped answering"}. ` +
      `Calls are not moved to the host on their own: stop it (\`enclave enclosure stop ${conv.id}\`) to continue on host placement, ` +
      `or stop it and start a new one.`,
  );
}

export interface PlacementsOptions {
  store: ConversationStore;
  hostAgents: HostAgents;
  engines: EnginePort;
  audit: AuditLog;
  /** Each enclosure's own host uid, held by its conversation while the enclosure exists. */
  uids: SandboxUids;
  log?: (line: string, conversationId?: string) => void;
}

export class Placements implements PlacementPort {
  private readonly clients = new Map<string, AgentClient>();
  private readonly opening = new Map<string, Promise<AgentClient>>();
  /** One death watch per engine an enclosure was needed on, by engine name. */
  private readonly watchers = new Map<string, DeathWatch>();
  /** The pid of the agent that answered a conversation last; another pid with no stop between means it was restarted. */
  private readonly lastAgentPid = new Map<string, number>();
  private pool: WarmPool | undefined;
  /** Images refused by the rule, recorded at most once an interval per tenant (a flood must not fill the log). */
  private readonly refusals: RefusalAudit;

  private readonly store: ConversationStore;
  private readonly hostAgents: HostAgents;
  private readonly engines: EnginePort;
  private readonly audit: AuditLog;
  /** Each enclosure's own host uid, held by its conversation while the enclosure exists. */
  private readonly uids: SandboxUids;
  private readonly log: (line: string, conversationId?: string) => void;

  constructor(opts: PlacementsOptions) {
    this.store = opts.store;
    this.hostAgents = opts.hostAgents;
    this.engines = opts.engines;
    this.audit = opts.audit;
    this.uids = opts.uids;
    this.log = opts.log ?? ((line, conversationId) => logger().warn(scopeOf({ conversationId }), line));
    this.refusals = new RefusalAudit((input) => this.audit.record(input));
  }

  /**
   * Reattaches to enclosures that outlived a control-plane restart, and watches for deaths. The watch
   * starts first, so a failure below never leaves deaths unwatched; an enclosure that cannot be
   * inspected stays as recorded and is checked again on its next call.
   */
  async recover(): Promise<void> {
    const names = this.engines.names();
    const engineOf = (c: ConversationRecord): string => c.enclosure?.engine ?? names[0] ?? "";
    let firstFailure: unknown;
    for (const name of names) {
      const withEnclosure = this.store.list().filter((c) => c.enclosure && engineOf(c) === name);
      let driver: DockerDriver;
      try {
        driver = await this.engines.driver(name);
        this.watch(driver);
        await this.reapOrphans(driver);
      } catch (err) {
        // With no enclosure recorded there, the engine is not needed now; orphans are reaped next start.
        if (withEnclosure.length) firstFailure ??= err;
        continue;
      }
      await this.recoverOn(driver, withEnclosure);
    }
    this.releaseUnheldUids();
    if (firstFailure) throw firstFailure;
  }

  private async recoverOn(driver: DockerDriver, withEnclosure: ConversationRecord[]): Promise<void> {
    for (const conv of withEnclosure) {
      const enc = conv.enclosure as EnclosureRecord;
      try {
        const fate = await driver.inspect(enc);
        if (!fate.running) this.markDead(conv, fate.detail);
      } catch (err) {
        this.log(
          `conversation ${conv.id}: cannot inspect ${enclosureWhere(enc)} at start (${(err as Error).message}); its state is checked again on its next call`,
          conv.id,
        );
      }
    }
  }

  /** Frees the uids of conversations that no longer record an enclosure (a start or delete cut short by a crash). */
  private releaseUnheldUids(): void {
    for (const owner of this.uids.holders()) {
      if (SandboxUids.isSpare(owner)) continue;
      if (!(this.store.has(owner) && this.store.get(owner).enclosure)) this.uids.release(owner);
    }
  }

  /**
   * Removes containers this control plane made that no record refers to: their conversation is gone
   * from the store, or its record names another container (a start interrupted before it was
   * recorded, a delete that could not finish). Runs at start, before any call can start one.
   */
  private async reapOrphans(driver: DockerDriver): Promise<void> {
    for (const c of await driver.managedContainers()) {
      // Only a conversation's enclosure is recognised as an orphan: anything else of ours (a warm pool's
      // containers carry no conversation) belongs to a part that keeps its own account of it.
      if (!c.conversation) continue;
      const conv = this.store.has(c.conversation) ? this.store.get(c.conversation) : undefined;
      if (conv?.enclosure?.containerId === c.id) continue;
      // A record that names the container keeps it, whatever its label says (a record re-keyed since).
      if (this.store.list().some((r) => r.enclosure?.containerId === c.id)) continue;
      const why = conv
        ? `conversation ${conv.id} records ${conv.enclosure ? enclosureWhere(conv.enclosure) : "no enclosure"}`
        : `conversation ${c.conversation} is not in the store`;
      try {
        await driver.reap(c.id);
        this.log(`reaped orphaned container ${c.id.slice(0, 12)} (${c.running ? "running" : "stopped"}): ${why}`);
      } catch (err) {
        this.log(`cannot reap orphaned container ${c.id.slice(0, 12)} (${why}): ${(err as Error).message}`);
      }
    }
    // Their copy-mode workspace disks (volume, loop device, image file) go the same way.
    for (const { conversation, disk } of await driver.managedDisks()) {
      const conv = this.store.has(conversation) ? this.store.get(conversation) : undefined;
      if (conv?.enclosure?.disk?.volume === disk.volume) continue;
      try {
        await driver.reapDisk(disk);
        this.log(`reaped orphaned workspace disk ${disk.volume}: conversation ${conversation} ${conv ? "records another" : "is not in the store"}`);
      } catch (err) {
        this.log(`cannot reap orphaned workspace disk ${disk.volume}: ${(err as Error).message}`);
      }
    }
  }

  /** Starts claim from this warm pool when one of its enclosures fits. */
  usePool(pool: WarmPool): void {
    this.pool = pool;
  }

  /** The watch on container deaths, once an engine was needed. */
  get deathWatch(): DeathWatch | undefined {
    return this.watchers.get(this.engines.names()[0] ?? "") ?? this.watchers.values().next().value;
  }

  private watch(driver: DockerDriver): void {
    if (this.watchers.has(driver.engine.name)) return;
    this.watchers.set(
      driver.engine.name,
      driver.watchDeaths((containerId) => {
        const conv = this.store.list().find((c) => c.enclosure?.containerId === containerId);
        if (!conv?.enclosure || conv.enclosure.state === "dead") return;
        void driver.inspect(conv.enclosure).then(
          (fate) => {
            if (!fate.running) this.markDead(conv, fate.detail);
          },
          (err: unknown) =>
            this.log(
              `conversation ${conv.id}: a death event came but the container cannot be inspected (${(err as Error).message}); the next call checks it`,
              conv.id,
            ),
        );
      }),
    );
  }

  private noteAgent(conversationId: string, pid: number | undefined, where: string): void {
    if (!pid) return;
    const before = this.lastAgentPid.get(conversationId);
    this.lastAgentPid.set(conversationId, pid);
    if (before === undefined || before === pid) return;
    this.audit.record({
      kind: "agent_restarted",
      conversationId,
      placement: where,
      detail: `the agent (pid ${before}) was gone and another (pid ${pid}) answers; its kernels, language servers and debug sessions started over`,
    });
  }

  /** Forgets what was known about the conversation's agents (its host agent was stopped on purpose). */
  forget(conversationId: string): void {
    this.lastAgentPid.delete(conversationId);
  }

  /** Removes what was built for a deleted conversation (its dev container's image) on every engine. */
  async removeBuiltImages(conversationId: string): Promise<void> {
    for (const name of this.engines.names()) {
      try {
        const driver = await this.engines.driver(name);
        const left = await driver.removeBuiltImage(conversationId);
        if (left) this.log(`conversation ${conversationId} deleted; could not remove its ${left}`);
      } catch (err) {
        this.log(`conversation ${conversationId} deleted; could not look for its built images on engine ${name}: ${(err as Error).message}`);
      }
    }
  }

  private markDead(conv: ConversationRecord, detail: string): void {
    const enc = conv.enclosure;
    if (!enc || enc.state === "dead") return;
    enc.state = "dead";
    enc.detail = detail;
    this.store.put(conv);
    this.clients.get(conv.id)?.close();
    this.clients.delete(conv.id);
    this.audit.record({ kind: "enclosure_died", conversationId: conv.id, detail, placement: enclosureWhere(enc) });
  }

  private async enclosureClient(conv: ConversationRecord, enc: EnclosureRecord): Promise<AgentClient> {
    const client = this.clients.get(conv.id);
    if (client) return client;
    // Enclosures recorded while the engine was unreachable at start get their watch on first use.
    this.watch(await this.engines.driver(enc.engine));
    // Concurrent first calls share one client (and so one relay socket).
    let opening = this.opening.get(conv.id);
    if (!opening) {
      opening = this.engines
        .driver(enc.engine)
        .then((driver) => driver.client(enc))
        .then((c) => {
          this.clients.set(conv.id, c);
          return c;
        })
        .finally(() => this.opening.delete(conv.id));
      this.opening.set(conv.id, opening);
    }
    return opening;
  }

  async endpoint(conversationId: string, prepare?: AgentPrepare): Promise<AgentEndpoint> {
    const conv = this.store.get(conversationId);
    const enc = conv.enclosure;
    if (!enc) {
      const host = await this.hostAgents.endpoint(conv.id, conv.workspacePath, prepare);
      noteHostAgentRunning(this.store, conv);
      this.noteAgent(conv.id, this.hostAgents.pid(conv.id), host.where);
      return host;
    }
    if (enc.state === "dead") throw deadError(conv, enc);
    const client = await this.enclosureClient(conv, enc);
    if (!client.connected) {
      try {
        const health = await client.health(LIMITS.agentProbeTimeoutMs);
        this.noteAgent(conv.id, health.pid, enclosureWhere(enc));
      } catch {
        const fate = await (await this.engines.driver(enc.engine)).inspect(enc);
        if (!fate.running) {
          this.markDead(conv, fate.detail);
          throw deadError(conv, enc);
        }
        throw new EnclaveError(
          "placement_unavailable",
          `the agent in ${enclosureWhere(enc)} does not answer although its container runs; stop and start the enclosure of \`${conv.id}\``,
        );
      }
    }
    return { placement: "enclosure", client, where: enclosureWhere(enc) };
  }

  /** The agent serving the conversation right now, if any: for watching, so it starts nothing. */
  async running(conversationId: string): Promise<AgentEndpoint | undefined> {
    const conv = this.store.get(conversationId);
    const enc = conv.enclosure;
    if (!enc) return this.hostAgents.running(conv.id);
    if (enc.state !== "running") return undefined;
    return { placement: "enclosure", client: await this.enclosureClient(conv, enc), where: enclosureWhere(enc) };
  }

  async explain(conversationId: string, err: EnclaveError): Promise<EnclaveError> {
    const conv = this.store.has(conversationId) ? this.store.get(conversationId) : undefined;
    const enc = conv?.enclosure;
    if (!conv || !enc) return err;
    if (enc.state === "dead") return deadError(conv, enc);
    try {
      const fate = await (await this.engines.driver(enc.engine)).inspect(enc);
      if (fate.running) return err;
      this.markDead(conv, fate.detail);
      return deadError(conv, enc);
    } catch {
      return err;
    }
  }

  /** What the start may name: its tenant's own dev-container builds are those of every conversation of the tenant. */
  private imageAccess(conv: ConversationRecord, caller: EnclosureCaller): ImageAccess {
    const tenant = tenantOf(conv);
    const ownBuilds = this.store
      .list()
      .filter((c) => tenantOf(c) === tenant)
      .map((c) => devcontainerTag(c.id));
    return imageAccessFor(tenant, caller, ownBuilds, (image, namedBy) =>
      this.refusals.refused(`image ${tenant}`, {
        kind: "image_refused",
        conversationId: conv.id,
        outcome: "refused:image_unusable",
        detail: `image ${image} (named by ${namedBy === "caller" ? "the caller" : "the workspace's devcontainer.json"}) is not one tenant ${tenant} may start: the operator's ENCLAVE_ALLOWED_IMAGES, Enclave's own images and the tenant's own dev-container builds; answered as a missing image`,
      }),
    );
  }

  async start(conversationId: string, req: EnclosureRequest, caller: EnclosureCaller): Promise<ConversationRecord> {
    // A name outside Docker's grammar never reaches an engine (it would be put into the engine's URL).
    if (req.image) checkImageReference(req.image, "image");
    const conv = this.store.get(conversationId);
    if (conv.enclosure) {
      throw new EnclaveError(
        "already_exists",
        `conversation \`${bareId(conv.id)}\` already has an enclosure (${enclosureWhere(conv.enclosure)}, ${conv.enclosure.state}); stop it first`,
      );
    }
    const driver = await this.engines.choose(req);
    this.watch(driver);
    // The host agent must not write while the enclosure owns the workspace.
    await this.hostAgents.stop(conv.id);
    this.forget(conv.id);
    noteHostAgentStopped(conv);
    // The pool holds Enclave's own image on the default engine: a start naming an image or a dev
    // container, or placed on a remote engine, starts cold.
    const poolable = !req.image && !req.devcontainer && !driver.engine.remote;
    const { record, client, agentPid } =
      (poolable ? await this.pool?.claim(conv, req) : undefined) ?? (await this.startOn(driver, conv, req, this.imageAccess(conv, caller)));
    if (!record.pool) {
      try {
        await client.assign(conv.id);
      } catch (err) {
        client.close();
        await driver.reap(record.containerId, record.disk).then(
          () => this.uids.release(conv.id),
          () => undefined,
        );
        throw err;
      }
    }
    // The agent it started, so that another one answering later is known to be a restart.
    this.noteAgent(conv.id, agentPid, enclosureWhere(record));
    // As asked, for a fork to ask the same (the tenant's limits are applied anew then).
    const { buildsAllowed: _builds, ...asked } = req;
    record.request = asked;
    conv.enclosure = record;
    this.clients.set(conv.id, client);
    this.store.put(conv);
    this.audit.record({
      kind: "enclosure_started",
      conversationId: conv.id,
      placement: enclosureWhere(record),
      detail:
        `image ${record.image}; workspace ${record.workspaceMode}; user ${record.user}; relaxations: ${record.relaxations.join("; ") || "none"}` +
        (record.notes?.length ? `; notes: ${record.notes.join("; ")}` : "") +
        (record.pool
          ? `; from the warm pool (profile ${record.pool.profile}, started ${record.pool.claimedAtMs - record.pool.createdAtMs} ms before this claim, never used before)`
          : "; started cold"),
    });
    return conv;
  }

  /** A cold start; one refused because the shared agent volume is not the bundle's is recorded. */
  private async startOn(driver: DockerDriver, conv: ConversationRecord, req: EnclosureRequest, access: ImageAccess): Promise<StartedEnclosure> {
    try {
      return await driver.start(conv, req, access, this.uids.acquire(conv.id));
    } catch (err) {
      // A failed start removed what it made: nothing runs as the uid.
      this.uids.release(conv.id);
      if (err instanceof EnclaveError && err.code === "agent_bundle_mismatch") {
        this.audit.record({ kind: "agent_bundle_refused", conversationId: conv.id, outcome: `error:${err.code}`, detail: err.message });
      }
      throw err;
    }
  }

  /** Removes the enclosure (copy mode: its /workspace copied back first unless `force`); a failed copy back does not keep it. */
  async stop(conversationId: string, opts: { force?: boolean } = {}): Promise<ConversationRecord> {
    const conv = this.store.get(conversationId);
    const enc = conv.enclosure;
    if (!enc) throw new EnclaveError("failed_precondition", `conversation \`${bareId(conv.id)}\` has no enclosure to stop`);
    this.clients.get(conv.id)?.close();
    this.clients.delete(conv.id);
    this.forget(conv.id);
    // A stop the engine refused leaves the enclosure running and recorded: the next call reconnects to it.
    const { notCopiedBack, leftovers } = await (await this.engines.driver(enc.engine)).stop(conv, enc, opts);
    await releasePoolLeftovers(enc).catch((err: unknown) => leftovers.push(`warm-pool slot ${enc.pool?.slot}: ${(err as Error).message}`));
    // The container is gone: nothing runs as its uid any more.
    this.uids.release(conv.id);
    delete conv.enclosure;
    if (enc.workspaceMode === "copy") conv.notCopiedBack = notCopiedBack;
    this.store.put(conv);
    const detail = [
      notCopiedBack.length ? `not copied back into the workspace: ${notCopiedBack.join("; ")}` : "",
      leftovers.length ? `could not remove: ${leftovers.join("; ")}` : "",
    ].filter(Boolean);
    this.audit.record({
      kind: "enclosure_stopped",
      conversationId: conv.id,
      placement: enclosureWhere(enc),
      ...(detail.length ? { detail: detail.join("\n") } : {}),
    });
    return conv;
  }

  close(): void {
    for (const w of this.watchers.values()) w.stop();
    this.watchers.clear();
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
  }
}
