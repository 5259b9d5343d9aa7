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
import { pauseCheckpointName } from "./enclosure-checkpoint.js";

/** Who resumes an enclosure a call found paused (the audit's "by"). */
export const AUTO_RESUME_BY = "a call to the paused enclosure (auto-resume)";
/** The pause note a failed resume leaves (one at a time: the latest). */
const RESUME_FAILED_NOTE = "resume failed at";

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
  /** Each conversation's pause or resume in progress: the next one (and a call's auto-resume) waits for it. */
  private readonly transitions = new Map<string, Promise<unknown>>();
  /** Conversations whose enclosure is being started (recorded only once its agent answers). */
  private readonly starting = new Set<string>();
  /** Containers being checkpointed or stopped: their exit is the pause's or the stop's, not a death. */
  private readonly exitingOnPurpose = new Set<string>();
  /** Told of the agent each call reaches (the egress tunnels follow it); a failure there fails no call. */
  onAgent: (conversationId: string, client: AgentClient) => Promise<void> = async () => undefined;
  /** Images refused by the rule, recorded at most once an interval per tenant (a flood must not fill the log). */
  private readonly refusals: RefusalAudit;

  private readonly store: ConversationStore;
  private readonly hostAgents: HostAgents;
  private readonly engines: EnginePort;
  private readonly audit: AuditLog;
  /** Each enclosure's own host uid, held by its conversation while the enclosure exists. */
  private readonly uids: SandboxUids;
  private readonly log: (line: string, conversationId?: string) => void;
  /** Wakes a sleeping conversation before its placement is used (set by the control plane; see lifecycle/). */
  private waker: (conversationId: string) => Promise<void> = () => Promise.resolve();

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
        // A paused enclosure's container is stopped on purpose; it stays paused until resumed.
        if (enc.state === "paused") continue;
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
        if (!conv?.enclosure || conv.enclosure.state === "dead" || conv.enclosure.state === "paused") return;
        if (this.exitingOnPurpose.has(containerId)) return;
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
    // A pause's or a stop's exit is not a death (an inspect that started before it finished lands here).
    if (enc.state === "paused" || this.exitingOnPurpose.has(enc.containerId)) return;
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

  /** Every endpoint() first lets `wake` bring a sleeping conversation's placement back. */
  setWaker(wake: (conversationId: string) => Promise<void>): void {
    this.waker = wake;
  }

  async endpoint(conversationId: string, prepare?: AgentPrepare): Promise<AgentEndpoint> {
    // A call waits for a pause or resume in progress; a paused enclosure is resumed first (audited as
    // the call's doing), so the call answers from the kernels the pause kept.
    // A sleeping conversation is woken first (a sleep with memory is a pause its wake resumes).
    await this.waker(conversationId);
    await this.transitions.get(conversationId)?.catch(() => undefined);
    if (this.store.get(conversationId).enclosure?.state === "paused") await this.resume(conversationId, AUTO_RESUME_BY);
    const conv = this.store.get(conversationId);
    const enc = conv.enclosure;
    if (!enc) {
      // A kernel started ahead would start before the egress listener, without the proxy's variables.
      const host = await this.hostAgents.endpoint(conv.id, conv.workspacePath, conv.egress?.length ? undefined : prepare);
      noteHostAgentRunning(this.store, conv);
      this.noteAgent(conv.id, this.hostAgents.pid(conv.id), host.where);
      await this.tellAgent(conv.id, host.client);
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
    await this.tellAgent(conv.id, client);
    return { placement: "enclosure", client, where: enclosureWhere(enc) };
  }

  private async tellAgent(conversationId: string, client: AgentClient): Promise<void> {
    try {
      await this.onAgent(conversationId, client);
    } catch (err) {
      this.log(`conversation ${conversationId}: ${(err as Error).message}`, conversationId);
    }
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
    // Stopped on purpose, not dead: the failure stands as it is.
    if (enc.state === "paused") return err;
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
    // The record is written once the agent answers: a second start meanwhile would make a second
    // container, the first then running unrecorded (and uncounted by the tenant's quota).
    if (this.starting.has(conv.id)) {
      throw new EnclaveError(
        "already_exists",
        `conversation \`${bareId(conv.id)}\`'s enclosure is being started; wait for that start, or stop it once it runs`,
      );
    }
    this.starting.add(conv.id);
    try {
      return await this.startRecorded(conv, req, caller);
    } finally {
      this.starting.delete(conv.id);
    }
  }

  private async startRecorded(conv: ConversationRecord, req: EnclosureRequest, caller: EnclosureCaller): Promise<ConversationRecord> {
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
    // What a wake starts again after a sleep (lifecycle/): the same options, named by the same caller.
    record.request = req;
    record.startedByOperator = caller.operator;
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

  /** Runs fn after the conversation's earlier pause or resume, so the two never interleave. */
  private inTransition<T>(conversationId: string, fn: () => Promise<T>): Promise<T> {
    const before = this.transitions.get(conversationId) ?? Promise.resolve();
    const run = before.catch(() => undefined).then(fn);
    const tail = run.catch(() => undefined);
    this.transitions.set(conversationId, tail);
    void tail.then(() => {
      if (this.transitions.get(conversationId) === tail) this.transitions.delete(conversationId);
    });
    return run;
  }

  private dropClient(conversationId: string): void {
    this.clients.get(conversationId)?.close();
    this.clients.delete(conversationId);
  }

  /**
   * Pauses the enclosure with its memory (runsc only): the agent ends its debug sessions, the agent
   * channel is closed (its relays' execs end: a live exec makes a restore fail), and the engine
   * checkpoints the container, which exits. Pausing a paused enclosure changes nothing. A pause that
   * cannot be taken leaves the enclosure running and says why (`checkpoint_unsupported`, `checkpoint_failed`).
   */
  pause(conversationId: string, by: string): Promise<ConversationRecord> {
    return this.inTransition(conversationId, () => this.pauseNow(conversationId, by));
  }

  private async pauseNow(conversationId: string, by: string): Promise<ConversationRecord> {
    const conv = this.store.get(conversationId);
    const enc = conv.enclosure;
    if (!enc)
      throw new EnclaveError(
        "failed_precondition",
        `conversation \`${bareId(conv.id)}\` has no enclosure to pause (host placement keeps no memory across a pause)`,
      );
    if (enc.state === "paused") return conv;
    if (enc.state === "dead") throw deadError(conv, enc);
    const driver = await this.engines.driver(enc.engine);
    const where = enclosureWhere(enc);
    const refused = (err: unknown): never => {
      const e = err instanceof EnclaveError ? err : new EnclaveError("checkpoint_failed", (err as Error).message);
      this.audit.record({ kind: "enclosure_paused", conversationId: conv.id, placement: where, outcome: `error:${e.code}`, detail: `by ${by}: ${e.message}` });
      throw e;
    };
    const t0 = Date.now();
    await driver.checkCheckpointable(enc).catch(refused);
    let prepared: { endedDebugSessions: string[]; tcpConnections: string[] };
    try {
      prepared = await (await this.enclosureClient(conv, enc)).checkpointPrepare();
    } catch (err) {
      return refused(
        new EnclaveError("checkpoint_failed", `the agent did not get ready for the checkpoint (${(err as Error).message}); the enclosure keeps running`),
      );
    }
    const ended = prepared.endedDebugSessions.map((s) => `debug ${s} ended by the pause (its adapter's loopback connection cannot be checkpointed)`);
    if (prepared.tcpConnections.length) {
      return refused(
        new EnclaveError(
          "checkpoint_failed",
          `TCP connections are open inside the enclosure (${prepared.tcpConnections.slice(0, 5).join("; ")}${prepared.tcpConnections.length > 5 ? "; …" : ""}), ` +
            `and gVisor cannot checkpoint an open TCP connection; close them (end the program that holds them) and pause again. The enclosure keeps running` +
            (ended.length ? `; ${ended.join("; ")}` : ""),
        ),
      );
    }
    // The agent channel is an exec relay: every relay exec must be gone before the checkpoint.
    this.dropClient(conv.id);
    this.exitingOnPurpose.add(enc.containerId);
    const checkpoint = pauseCheckpointName(Date.now());
    let bytes: number;
    try {
      ({ bytes } = await driver.checkpoint(enc, checkpoint));
    } catch (err) {
      this.exitingOnPurpose.delete(enc.containerId);
      // A save that failed may have taken the container with it: then it is dead, and said so.
      const fate = await driver.inspect(enc).catch(() => undefined);
      if (fate && !fate.running) this.markDead(conv, `a pause's checkpoint failed and the container stopped: ${fate.detail}`);
      return refused(err);
    }
    this.exitingOnPurpose.delete(enc.containerId);
    const pauseMs = Date.now() - t0;
    enc.state = "paused";
    enc.pause = { checkpoint, pausedAtMs: Date.now(), bytes, by, notes: ended };
    enc.pauseTimings = `pause ${pauseMs} ms`;
    this.store.put(conv);
    this.audit.record({
      kind: "enclosure_paused",
      conversationId: conv.id,
      placement: where,
      outcome: "ok",
      durationMs: pauseMs,
      detail:
        `by ${by}; memory kept in checkpoint ${checkpoint} (${bytes ? `${bytes} bytes` : "size not readable here"}; at most the memory limit, ${enc.limits.memoryBytes} bytes)` +
        (ended.length ? `; ${ended.join("; ")}` : ""),
    });
    return conv;
  }

  /**
   * Restores a paused enclosure from its checkpoint into the same container, and reconnects to its
   * agent. A resume that fails leaves it paused with its checkpoint in place, the reason in its pause
   * notes (`resume_failed`). Resuming a running enclosure changes nothing.
   */
  resume(conversationId: string, by: string): Promise<ConversationRecord> {
    return this.inTransition(conversationId, () => this.resumeNow(conversationId, by));
  }

  private async resumeNow(conversationId: string, by: string): Promise<ConversationRecord> {
    const conv = this.store.get(conversationId);
    const enc = conv.enclosure;
    if (!enc) throw new EnclaveError("failed_precondition", `conversation \`${bareId(conv.id)}\` has no enclosure to resume`);
    if (enc.state === "dead") throw deadError(conv, enc);
    if (enc.state !== "paused" || !enc.pause) return conv;
    const pause = enc.pause;
    const driver = await this.engines.driver(enc.engine);
    this.watch(driver);
    const where = enclosureWhere(enc);
    const t0 = Date.now();
    try {
      await driver.restore(enc, pause.checkpoint);
      let pid: number;
      try {
        pid = (await (await this.enclosureClient(conv, enc)).health(LIMITS.resumeAgentMs)).pid;
      } catch (err) {
        await driver.haltAfterFailedResume(enc);
        throw new EnclaveError("resume_failed", `the restored enclosure's agent did not answer (${(err as Error).message}); it was stopped again`);
      }
      this.noteAgent(conv.id, pid, where);
    } catch (err) {
      this.dropClient(conv.id);
      const e = err instanceof EnclaveError && err.code === "resume_failed" ? err : new EnclaveError("resume_failed", (err as Error).message);
      pause.notes = [...pause.notes.filter((n) => !n.startsWith(RESUME_FAILED_NOTE)), `${RESUME_FAILED_NOTE} ${new Date().toISOString()}: ${e.message}`];
      this.store.put(conv);
      this.audit.record({
        kind: "enclosure_resumed",
        conversationId: conv.id,
        placement: where,
        outcome: `error:${e.code}`,
        detail: `by ${by}: ${e.message}; it stays paused with its checkpoint in place (resume again, or stop it)`,
      });
      throw new EnclaveError(
        "resume_failed",
        `the enclosure of conversation \`${bareId(conv.id)}\` could not be resumed: ${e.message}. It stays paused with its checkpoint in place; ` +
          `resume it again, or stop it (\`enclave enclosure stop ${conv.id}\`; its workspace stays, its memory does not)`,
      );
    }
    const resumeMs = Date.now() - t0;
    const leftover = await driver.dropCheckpoint(enc, pause.checkpoint);
    if (leftover) this.log(`conversation ${conv.id}: resumed, but could not remove ${leftover}`, conv.id);
    enc.state = "running";
    delete enc.pause;
    enc.pauseTimings = `${enc.pauseTimings ? `${enc.pauseTimings}, ` : ""}resume ${resumeMs} ms`;
    this.store.put(conv);
    this.audit.record({
      kind: "enclosure_resumed",
      conversationId: conv.id,
      placement: where,
      outcome: "ok",
      durationMs: resumeMs,
      detail: `by ${by}; restored from its checkpoint with its memory (paused ${Date.now() - pause.pausedAtMs} ms before, by ${pause.by})`,
    });
    return conv;
  }

  /** Removes the enclosure (copy mode: its /workspace copied back first unless `force`); a failed copy back does not keep it. */
  async stop(conversationId: string, opts: { force?: boolean } = {}): Promise<ConversationRecord> {
    // A pause or resume in progress finishes first; a paused enclosure's container goes with its checkpoint.
    await this.transitions.get(conversationId)?.catch(() => undefined);
    const conv = this.store.get(conversationId);
    const enc = conv.enclosure;
    if (!enc) throw new EnclaveError("failed_precondition", `conversation \`${bareId(conv.id)}\` has no enclosure to stop`);
    this.clients.get(conv.id)?.close();
    this.clients.delete(conv.id);
    this.forget(conv.id);
    // A stop the engine refused leaves the enclosure running and recorded: the next call reconnects to it.
    // Until the record is gone, the container's exit is this stop's: the death watch must not record a death.
    this.exitingOnPurpose.add(enc.containerId);
    let notCopiedBack: string[];
    let leftovers: string[];
    try {
      ({ notCopiedBack, leftovers } = await (await this.engines.driver(enc.engine)).stop(conv, enc, opts));
      await releasePoolLeftovers(enc).catch((err: unknown) => leftovers.push(`warm-pool slot ${enc.pool?.slot}: ${(err as Error).message}`));
      // The container is gone: nothing runs as its uid any more.
      this.uids.release(conv.id);
      delete conv.enclosure;
      if (enc.workspaceMode === "copy") conv.notCopiedBack = notCopiedBack;
      this.store.put(conv);
    } finally {
      this.exitingOnPurpose.delete(enc.containerId);
    }
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
