// Host placement: one agent per conversation, started on first need inside its bubblewrap sandbox
// (host-sandbox.ts), restarted on the next call after it dies, and stopped with the conversation. Its
// stdin is a lifeline: if the control plane goes away, so does the agent and all it started. The
// control plane listens in its own private folder and hands the agent the listening socket, so the
// sandbox never holds a path the control plane dials.
//
// Spares (ENCLAVE_HOST_SPARES): agents started ahead of any conversation, each in a sandbox of its own
// over an empty workspace and state folder of the data folder's host-spares/. A new conversation
// whose workspace the control plane makes takes one: the spare's folders are renamed into the
// conversation's places (a bind mount follows its folder), so the agent that answers the first call
// is already running, with its Python kernel. A spare serves the one conversation that took it, and
// is never handed on.
// Spares are refilled by host calls, not by conversations made: one made for an enclosure stops its
// host agent unused, and a refill for it would only take CPU from the enclosure's start.
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, chownSync, createWriteStream, existsSync, mkdirSync, renameSync, rmSync, statSync, type WriteStream } from "node:fs";
import { createServer, type Server } from "node:net";
import type { Writable } from "node:stream";
import { dirname, join } from "node:path";
import { within } from "@enclave/proto/wait.js";
import { AgentClient } from "../agent-client/agent-client.js";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { cappedSink } from "../observability/capped-sink.js";
import { log as logger } from "../observability/log.js";
import { hostToolsBin } from "../repo-paths.js";
import type { AgentEndpoint, AgentPrepare } from "./agent-endpoint.js";
import { ownerId } from "./docker-driver.js";
import { SandboxCgroup } from "./sandbox-cgroup.js";
import { sandboxAgentPid } from "./sandbox-processes.js";
import { SandboxUids } from "./sandbox-uids.js";
import { SeccompFilter } from "./seccomp-filter.js";
import { giveWorkspaceTo, sandboxedAgentCommand, sandboxIdentity } from "./host-sandbox.js";
import { DEFAULT_PYTHON_ROOTS, type HostSandboxConfig, IN_SANDBOX, type SandboxIdentity } from "../model/host-sandbox.js";
import { type VenvBase, venvBasesToBind, workspaceVenvBases } from "./venv-base.js";
import { bareId, splitKey } from "../conversations/conversation-keys.js";
import { IMPLICIT_TENANT } from "../tenants/implicit-tenant.js";

interface HostAgent {
  child: ChildProcess;
  /** The sandbox's cgroup (none when ENCLAVE_HOST_CGROUPS=off). */
  cgroup?: SandboxCgroup;
  /** Whom the sandbox runs as. */
  identity: SandboxIdentity;
  client: AgentClient;
  socketPath: string;
  alive: boolean;
  exit?: string;
  stderrTail: string[];
  log: WriteStream;
  /** Taken from the spares: the workspace is to be given to the sandbox's account before a call runs. */
  toGive?: boolean;
  /** That give, under way: every call made meanwhile waits for it. */
  giving?: Promise<void>;
}

/** Where an agent's folders and log are. */
interface AgentPlace {
  /** For messages: the conversation, or the spare. */
  label: string;
  /** Who holds the sandbox's uid: the conversation's key, or the spare's name. */
  owner: string;
  workspace: string;
  stateDir: string;
  logFile: string;
}

/** What a spare's agent starts ahead: a Python kernel, over the empty workspace. */
const SPARE_PREPARE: AgentPrepare = { kernel: "python", spare: true };

/** A spare: its agent, and the folder of host-spares/ its own folders start in. */
type Spare = AgentPlace & { agent: HostAgent; dir: string };

export interface HostAgentsOptions {
  agentBundleDir: string;
  /** The control plane's private folder (mode 700) for sockets; unix socket paths are limited to 107 bytes. */
  socketRoot: string;
  logDir: string;
  /** Per-conversation state folders (the apply journal), each mounted into its sandbox alone. */
  stateRoot: string;
  sandbox: HostSandboxConfig;
  /** The data folder's host-spares/: on the workspaces' file system, so a spare's folder can be renamed into place. */
  spareRoot?: string;
}

export class HostAgents {
  private readonly agents = new Map<string, HostAgent>();
  private readonly starting = new Map<string, Promise<HostAgent>>();
  private counter = 0;
  private readonly spares: Spare[] = [];
  private readonly runTag = Date.now().toString(36);
  private sparesOff = false;
  private filling: Promise<void> | undefined;
  private closed = false;
  /** Each sandbox's own host uid (a spare's passes to the conversation that takes it). */
  private readonly uids: SandboxUids;
  private readonly seccomp: SeccompFilter;
  /** This control plane's folder for its sandboxes' cgroups (named for its data folder). */
  private readonly cgroupGroup: string;

  private readonly agentBundleDir: string;
  /** The control plane's private folder (mode 700) for sockets; unix socket paths are limited to 107 bytes. */
  private readonly socketRoot: string;
  private readonly logDir: string;
  /** Per-conversation state folders (the apply journal), each mounted into its sandbox alone. */
  private readonly stateRoot: string;
  private readonly sandbox: HostSandboxConfig;
  /** The data folder's host-spares/: on the workspaces' file system, so a spare's folder can be renamed into place. */
  private readonly spareRoot: string | undefined;

  constructor(opts: HostAgentsOptions) {
    this.agentBundleDir = opts.agentBundleDir;
    this.socketRoot = opts.socketRoot;
    this.logDir = opts.logDir;
    this.stateRoot = opts.stateRoot;
    this.sandbox = opts.sandbox;
    this.spareRoot = opts.spareRoot;
    const { socketRoot, stateRoot, sandbox, spareRoot } = this;
    // Spares of an earlier run died with it (their lifeline was that control plane); their uids are free.
    if (spareRoot) rmSync(spareRoot, { recursive: true, force: true });
    this.uids = new SandboxUids(join(dirname(stateRoot), "host-uids"), sandbox.uids);
    this.cgroupGroup = ownerId(dirname(stateRoot));
    if (sandbox.cgroups) {
      try {
        SandboxCgroup.sweep(this.cgroupGroup);
      } catch {
        // No cgroups here: the first start says so.
      }
    }
    this.seccomp = new SeccompFilter(socketRoot);
    // Built ahead, so that a first call does not wait for it; a failure is reported by that call.
    this.seccomp.program().catch(() => undefined);
    this.fillSpares();
  }

  /** How many spares are ready now. */
  spareCount(): number {
    return this.spares.filter((s) => s.agent.alive).length;
  }

  /**
   * Makes `workspace` (a folder the control plane is creating for a new conversation, not there yet)
   * from a spare's, and gives that spare's agent to the conversation. False when no spare is ready
   * (the caller makes the folder, and the first call starts an agent).
   */
  adopt(conversationId: string, workspace: string): boolean {
    const { stateDir, logFile } = this.placeOf(conversationId, workspace);
    // A folder left at either place is the caller's to reuse; a spare only brings new ones.
    if (existsSync(workspace) || existsSync(stateDir)) return false;
    let spare: Spare | undefined;
    while ((spare = this.spares.shift()) && !spare.agent.alive) this.discardSpare(spare);
    // None is refilled here: a conversation made for an enclosure never uses its host agent, so
    // spares are refilled by the host calls that use them (endpoint), never by conversations alone.
    if (!spare) return false;
    try {
      mkdirSync(dirname(workspace), { recursive: true });
      mkdirSync(this.stateRoot, { recursive: true, mode: 0o700 });
      renameSync(spare.workspace, workspace);
      try {
        renameSync(spare.stateDir, stateDir);
      } catch (err) {
        renameSync(workspace, spare.workspace);
        throw err;
      }
    } catch (err) {
      this.discardSpare(spare);
      if ((err as NodeJS.ErrnoException).code === "EXDEV") {
        // The workspaces are on another file system than the data folder's host-spares/: no spare
        // could ever be taken, so none is started again.
        this.sparesOff = true;
        logger().warn(
          `spare host agents are off: the workspace ${workspace} is on another file system than ${this.spareRoot}, so a spare's folder cannot be renamed into place`,
        );
      } else {
        logger().warn(
          `a spare host agent could not be given to conversation \`${bareId(conversationId)}\` (${(err as Error).message}); its agent starts on first call`,
        );
      }
      return false;
    }
    this.agents.set(conversationId, spare.agent);
    this.uids.transfer(spare.owner, conversationId);
    spare.agent.toGive = true;
    try {
      rmSync(logFile, { force: true });
      renameSync(spare.logFile, logFile);
    } catch {
      // The log keeps its spare's name; the agent is the conversation's all the same.
    }
    rmSync(spare.dir, { recursive: true, force: true });
    return true;
  }

  private discardSpare(spare: Spare): void {
    this.kill(spare.agent);
    spare.agent.log.end();
    rmSync(spare.logFile, { force: true });
    rmSync(spare.agent.socketPath, { force: true });
    rmSync(spare.dir, { recursive: true, force: true });
    // Its uid is free once its sandbox is gone (killed just now: the kernel reaps it in a moment).
    void this.whenGone(spare.agent).then(() => this.uids.release(spare.owner));
  }

  /** Resolves once the agent's sandbox has exited (at once when it has). */
  private whenGone(agent: HostAgent): Promise<void> {
    return agent.alive ? new Promise((r) => agent.child.once("exit", () => r())) : Promise.resolve();
  }

  /** Starts spares, one at a time, until the configured number are ready. */
  private fillSpares(): void {
    if (!this.spareRoot || !this.sandbox.spares || this.filling || this.closed || this.sparesOff) return;
    const root = this.spareRoot;
    this.filling = (async () => {
      while (!this.closed && this.spareCount() < this.sandbox.spares) {
        const dir = join(root, `s${++this.counter}`);
        // The log starts beside the conversations' (renamed in the same folder when taken); named
        // for this run, so that no earlier run's file is appended to.
        const place: AgentPlace = {
          label: `spare ${dir}`,
          owner: SandboxUids.spare(dir),
          workspace: join(dir, "workspace"),
          stateDir: join(dir, "state"),
          logFile: join(this.logDir, `spare-${this.runTag}-${this.counter}.log`),
        };
        let started: HostAgent | undefined;
        try {
          mkdirSync(place.workspace, { recursive: true, mode: 0o700 });
          // Its Python kernel starts with it (a new conversation's first call is most often a cell);
          // the agent checks at that cell that the workspace has not been given a .venv since.
          const agent = await this.spawnAgent(place, SPARE_PREPARE, (a) => (started = a));
          await kernelStarted(agent.client);
          const spare = { agent, dir, ...place };
          if (this.closed) this.discardSpare(spare);
          else this.spares.push(spare);
        } catch (err) {
          // One that did not answer in time is still running: it goes too.
          if (started) this.discardSpare({ agent: started, dir, ...place });
          else rmSync(dir, { recursive: true, force: true });
          logger().warn(`a spare host agent did not start (${(err as Error).message}); tried again when the next conversation is made`);
          return;
        }
      }
    })().finally(() => (this.filling = undefined));
  }

  /** The conversation's host agent, started (or restarted) when it is not running. */
  async endpoint(conversationId: string, workspace: string, prepare?: AgentPrepare): Promise<AgentEndpoint> {
    // Host placement is in use: the spares it may want next are started (a no-op when all are ready).
    this.fillSpares();
    let agent = this.agents.get(conversationId);
    if (agent?.alive && !agent.client.connected) {
      try {
        await agent.client.health(LIMITS.agentProbeTimeoutMs);
      } catch {
        this.kill(agent);
        agent = undefined;
      }
    }
    if (agent?.alive && agent.toGive && (await this.venvBases(workspace)).some((b) => b.refused || !b.visible)) {
      // Taken from the spares, and given a .venv since whose Python the spare's sandbox was not made
      // to show (or to refuse): an agent of the conversation's own is started over it instead.
      await this.stop(conversationId);
      agent = undefined;
    }
    if (!agent?.alive) agent = await this.start(conversationId, workspace, prepare);
    if (agent.toGive) {
      // Whatever was put in the workspace since it was taken is given to the sandbox's account too,
      // before any call of the conversation runs; a failed give is tried again by the next call.
      const taken = agent;
      taken.giving ??= giveWorkspaceTo(workspace, taken.identity)
        .then(() => {
          taken.toGive = false;
        })
        .finally(() => {
          taken.giving = undefined;
        });
      await taken.giving;
    }
    return { placement: "host", client: agent.client, where: this.where(agent), hostWorkspace: workspace };
  }

  /** The conversation's host agent when one is running now; never starts one. */
  running(conversationId: string): AgentEndpoint | undefined {
    const agent = this.agents.get(conversationId);
    return agent?.alive ? { placement: "host", client: agent.client, where: this.where(agent) } : undefined;
  }

  /** What the audit reads from the host: the running agent's own pid, bubblewrap's, the sandbox's cgroup and whom it runs as; never starts one. */
  auditTarget(
    conversationId: string,
  ): { agentPid: number; bwrapPid: number; cgroup?: SandboxCgroup; identity: SandboxIdentity; config: HostSandboxConfig } | undefined {
    const agent = this.agents.get(conversationId);
    if (!agent?.alive || agent.child.pid === undefined) return undefined;
    const agentPid = sandboxAgentPid(agent.child.pid);
    return agentPid === undefined ? undefined : { agentPid, bwrapPid: agent.child.pid, cgroup: agent.cgroup, identity: agent.identity, config: this.sandbox };
  }

  /** The running agent's sandbox cgroup, for its usage: undefined when no agent runs, cgroup undefined when sandboxes have none. */
  usageTarget(conversationId: string): { cgroup?: SandboxCgroup } | undefined {
    const agent = this.agents.get(conversationId);
    return agent?.alive ? { cgroup: agent.cgroup } : undefined;
  }

  /** The conversations whose host agent runs now (spares aside): a count per tenant costs the agents running, not every conversation. */
  runningIds(): string[] {
    return [...this.agents].filter(([, a]) => a.alive).map(([id]) => id);
  }

  pid(conversationId: string): number | undefined {
    const a = this.agents.get(conversationId);
    return a?.alive ? a.child.pid : undefined;
  }

  async stop(conversationId: string): Promise<void> {
    const agent = this.agents.get(conversationId);
    this.agents.delete(conversationId);
    if (!agent) return;
    agent.client.close();
    if (agent.alive) {
      // Closing the lifeline lets the agent stop its kernels and servers; the sandbox's whole process
      // tree goes with bubblewrap when that takes too long.
      const exited = new Promise<true>((r) => agent.child.once("exit", () => r(true)));
      agent.child.stdin?.end();
      if (!(await within(exited, LIMITS.hostAgentStopGraceMs, false))) {
        agent.child.kill("SIGKILL");
        await exited;
      }
    }
    await agent.cgroup?.remove();
    rmSync(agent.socketPath, { force: true });
    agent.log.end();
  }

  /** Removes what host placement kept for the conversation (its state folder, its uid); its agent is stopped. */
  forget(conversationId: string): void {
    rmSync(this.stateDir(conversationId), { recursive: true, force: true });
    this.uids.release(conversationId);
  }

  /** The conversation's state folder: a token tenant's is named by a digest of its key, since the
   * sandbox's mount table shows the name (the implicit tenant's, by the key, where it always was). */
  private stateDir(conversationId: string): string {
    const before = join(this.stateRoot, conversationId);
    if (splitKey(conversationId).tenant === IMPLICIT_TENANT) return before;
    const dir = join(this.stateRoot, createHash("sha256").update(conversationId).digest("hex").slice(0, 32));
    // Where an earlier version kept it, by the key itself: moved, so that its journal is found.
    if (existsSync(before) && !existsSync(dir)) renameSync(before, dir);
    return dir;
  }

  private placeOf(conversationId: string, workspace: string): AgentPlace {
    return {
      label: `conversation \`${bareId(conversationId)}\``,
      owner: conversationId,
      workspace,
      stateDir: this.stateDir(conversationId),
      logFile: join(this.logDir, `agent-${conversationId}.log`),
    };
  }

  async stopAll(): Promise<void> {
    this.closed = true;
    await this.filling;
    const spares = this.spares.splice(0);
    for (const spare of spares) this.discardSpare(spare);
    // Their cgroups go before the control plane does (nothing would remove them after).
    await Promise.all(spares.map((s) => this.whenGone(s.agent).then(() => s.agent.cgroup?.remove())));
    await Promise.all([...this.agents.keys()].map((id) => this.stop(id)));
  }

  private where(agent: HostAgent): string {
    return `host placement, pid ${agent.child.pid ?? "?"}${agent.exit ? `, ${agent.exit}` : ""}`;
  }

  private kill(agent: HostAgent): void {
    agent.client.close();
    if (agent.alive) agent.child.kill("SIGKILL");
  }

  private start(conversationId: string, workspace: string, prepare?: AgentPrepare): Promise<HostAgent> {
    const pending = this.starting.get(conversationId);
    if (pending) return pending;
    const previous = this.agents.get(conversationId);
    if (previous) previous.client.close();
    const place = this.placeOf(conversationId, workspace);
    // Known as the conversation's from its spawn, so that a stop meanwhile finds it.
    const p = this.spawnAgent(place, prepare, (agent) => this.agents.set(conversationId, agent)).finally(() => this.starting.delete(conversationId));
    this.starting.set(conversationId, p);
    return p;
  }

  /** An agent's state folder, owned by the sandbox's account and private to it. */
  private prepareStateDir(dir: string, id: SandboxIdentity): string {
    mkdirSync(dirname(dir), { recursive: true, mode: 0o700 });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    if (id.drop) chownSync(dir, id.uid, id.gid);
    return dir;
  }

  /** The Python installations the workspace's virtual environments were made from, judged for showing in its sandbox. */
  private venvBases(workspace: string): Promise<VenvBase[]> {
    const hostToolsDir = dirname(dirname(hostToolsBin));
    return workspaceVenvBases(workspace, {
      roots: this.sandbox.pythonRoots ?? DEFAULT_PYTHON_ROOTS,
      forbidden: [dirname(this.stateRoot), workspace, this.agentBundleDir, hostToolsDir, this.socketRoot, this.logDir],
    });
  }

  private async spawnAgent(place: AgentPlace, prepare?: AgentPrepare, spawned?: (agent: HostAgent) => void): Promise<HostAgent> {
    const { workspace, logFile } = place;
    const bundleEntry = join(this.agentBundleDir, "enclave-agent.mjs");
    if (!existsSync(bundleEntry)) {
      throw new EnclaveError("placement_unavailable", `the agent bundle ${bundleEntry} is missing: run \`make build\``);
    }
    mkdirSync(this.logDir, { recursive: true });
    const id = sandboxIdentity(() => this.uids.acquire(place.owner));
    const stateDir = this.prepareStateDir(place.stateDir, id);
    await giveWorkspaceTo(workspace, id);
    const seccomp = await this.seccomp.program();
    const socketPath = join(this.socketRoot, `h${++this.counter}.sock`);
    const listener = await listenFor(socketPath);
    const hostToolsDir = dirname(dirname(hostToolsBin));
    // Read before the workspace is the sandbox's to change under us: what its venvs were made from.
    const venvBases = await this.venvBases(workspace);
    let cgroup: SandboxCgroup | undefined;
    let child: ChildProcess;
    let fdData: Buffer[];
    try {
      cgroup = this.sandbox.cgroups ? SandboxCgroup.create(this.sandbox.limits, this.cgroupGroup) : undefined;
      const command = sandboxedAgentCommand(
        this.sandbox,
        id,
        {
          workspace,
          agentBundleDir: this.agentBundleDir,
          hostToolsDir: existsSync(hostToolsBin) ? hostToolsDir : undefined,
          stateDir,
          pythonBases: venvBasesToBind(venvBases),
        },
        [
          ...["--listen-fd", "3", "--workspace", IN_SANDBOX.workspace, "--state-dir", IN_SANDBOX.state, "--placement", "host", "--exit-with-stdin"],
          ...(prepare?.kernel ? ["--warm-kernel", prepare.kernel] : []),
          ...(prepare?.spare ? ["--spare"] : []),
          // The agent names why a venv's interpreter is missing, in the words of its refusal.
          ...venvBases.flatMap((b) => (b.refused ? ["--venv-refused", `${IN_SANDBOX.workspace}/${b.venv}\t${b.refused.code}\t${b.refused.message}`] : [])),
        ],
        { seccomp, cgroupJoin: cgroup?.selfJoinFiles() ?? [] },
      );
      fdData = command.fdData;
      child = spawn(command.file, command.args, {
        stdio: ["pipe", "ignore", "pipe", listeningFd(listener), ...fdData.map(() => "pipe" as const)],
        env: command.env,
      });
    } catch (err) {
      void cgroup?.remove();
      throw err;
    } finally {
      // The agent holds the listening socket now; ours must not accept a connection too.
      listener.close();
    }
    fdData.forEach((data, i) => {
      const stream = child.stdio[4 + i] as Writable | null | undefined;
      stream?.on("error", () => undefined);
      stream?.end(data);
    });
    const logged = fileSize(logFile);
    // A full log is kept once as `.1`: what a sandbox floods never grows past two files.
    if (logged >= LIMITS.hostAgentLogMaxBytes) renameSync(logFile, `${logFile}.1`);
    const log = createWriteStream(logFile, { flags: "a" });
    const toLog = cappedSink(
      (chunk) => log.write(chunk),
      LIMITS.hostAgentLogMaxBytes - (logged >= LIMITS.hostAgentLogMaxBytes ? 0 : logged),
      () => log.write(`\n[enclave: this agent's log reached ${LIMITS.hostAgentLogMaxBytes / 1024 / 1024} MiB; the rest of its standard error is dropped]\n`),
    );
    const agent: HostAgent = {
      child,
      cgroup,
      identity: id,
      socketPath,
      alive: true,
      stderrTail: [],
      log,
      client: new AgentClient(socketPath, () => this.where(agent)),
    };
    child.stderr?.on("data", (chunk: Buffer) => {
      toLog(chunk);
      agent.stderrTail.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      agent.stderrTail.splice(0, Math.max(0, agent.stderrTail.length - 20));
    });
    child.stdin?.on("error", () => undefined);
    child.on("exit", (code, signal) => {
      agent.alive = false;
      agent.exit = signal ? `killed by ${signal}` : `exited with code ${code}`;
      void cgroup?.remove();
    });
    spawned?.(agent);
    const died = new Promise<never>((_, reject) =>
      child.once("exit", () =>
        reject(
          new EnclaveError("placement_unavailable", `the host agent for ${place.label} ${agent.exit} before it was ready:\n${agent.stderrTail.join("\n")}`),
        ),
      ),
    );
    died.catch(() => undefined);
    await Promise.race([agent.client.health(LIMITS.agentReadyTimeoutMs), died]);
    return agent;
  }
}

/**
 * Resolves once the agent's kernel started ahead is alive, so that a spare is counted ready with it
 * (and the next one's start does not compete with it); at the latest after the agent's ready timeout,
 * or at once if the agent cannot say: a spare whose kernel did not start is still one (the first cell
 * starts its kernel).
 */
async function kernelStarted(client: AgentClient): Promise<void> {
  const deadline = Date.now() + LIMITS.agentReadyTimeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await client.listKernels()).kernels.length > 0) return;
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, KERNEL_POLL_MS));
  }
}

/** How often a spare's kernel is looked for while it starts (a start takes 50–300 ms). */
const KERNEL_POLL_MS = 20;

/** A listening socket bound at socketPath, for the agent to inherit. It is bound under a temporary
 * name and renamed into place, so that closing our copy (which unlinks the name it was bound to)
 * leaves the agent's listener reachable. */
async function listenFor(socketPath: string): Promise<Server> {
  const staging = `${socketPath}.new`;
  rmSync(staging, { force: true });
  rmSync(socketPath, { force: true });
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(staging, () => resolve());
  });
  chmodSync(staging, 0o600);
  renameSync(staging, socketPath);
  return server;
}

/** The descriptor of a listening net.Server, to pass to a child's stdio (Node has no public accessor). */
function listeningFd(server: Server): number {
  const fd = (server as unknown as { _handle?: { fd?: number } })._handle?.fd;
  if (typeof fd !== "number" || fd < 0) throw new EnclaveError("failed", "cannot hand the host agent its listening socket: this Node does not expose it");
  return fd;
}

function fileSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}
