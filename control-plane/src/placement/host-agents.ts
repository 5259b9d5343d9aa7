// Host placement: one agent process per conversation, started on first need, restarted on the next
// call after it dies, and stopped with the conversation. Its stdin is a lifeline: if the control
// plane goes away, so does the agent.
import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, type WriteStream } from "node:fs";
import { delimiter, join } from "node:path";
import { AgentClient } from "../agent-client/agent-client.js";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { hostToolsBin } from "../repo-paths.js";
import type { AgentEndpoint } from "./agent-endpoint.js";

interface HostAgent {
  child: ChildProcess;
  client: AgentClient;
  socketPath: string;
  alive: boolean;
  exit?: string;
  stderrTail: string[];
  log: WriteStream;
}

export class HostAgents {
  private readonly agents = new Map<string, HostAgent>();
  private readonly starting = new Map<string, Promise<HostAgent>>();
  private counter = 0;

  constructor(
    private readonly bundleEntry: string,
    /** A short folder for sockets (unix socket paths are limited to 107 bytes). */
    private readonly socketRoot: string,
    private readonly logDir: string,
  ) {}

  /** The conversation's host agent, started (or restarted) when it is not running. */
  async endpoint(conversationId: string, workspace: string): Promise<AgentEndpoint> {
    let agent = this.agents.get(conversationId);
    if (agent?.alive && !agent.client.connected) {
      try {
        await agent.client.health(LIMITS.agentProbeTimeoutMs);
      } catch {
        this.kill(agent);
        agent = undefined;
      }
    }
    if (!agent?.alive) agent = await this.start(conversationId, workspace);
    return { placement: "host", client: agent.client, where: this.where(agent) };
  }

  /** The conversation's host agent when one is running now; never starts one. */
  running(conversationId: string): AgentEndpoint | undefined {
    const agent = this.agents.get(conversationId);
    return agent?.alive ? { placement: "host", client: agent.client, where: this.where(agent) } : undefined;
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
      const exited = new Promise<void>((r) => agent.child.once("exit", () => r()));
      agent.child.kill("SIGTERM");
      const timer = setTimeout(() => agent.child.kill("SIGKILL"), 3_000);
      await exited;
      clearTimeout(timer);
    }
    agent.log.end();
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.agents.keys()].map((id) => this.stop(id)));
  }

  private where(agent: HostAgent): string {
    return `host placement, pid ${agent.child.pid ?? "?"}${agent.exit ? `, ${agent.exit}` : ""}`;
  }

  private kill(agent: HostAgent): void {
    agent.client.close();
    if (agent.alive) agent.child.kill("SIGKILL");
  }

  private start(conversationId: string, workspace: string): Promise<HostAgent> {
    const pending = this.starting.get(conversationId);
    if (pending) return pending;
    const p = this.spawnAgent(conversationId, workspace).finally(() => this.starting.delete(conversationId));
    this.starting.set(conversationId, p);
    return p;
  }

  private async spawnAgent(conversationId: string, workspace: string): Promise<HostAgent> {
    if (!existsSync(this.bundleEntry)) {
      throw new EnclaveError("placement_unavailable", `the agent bundle ${this.bundleEntry} is missing: run \`make build\``);
    }
    const previous = this.agents.get(conversationId);
    if (previous) previous.client.close();
    mkdirSync(this.logDir, { recursive: true });
    const socketPath = join(this.socketRoot, `h${++this.counter}.sock`);
    const child = spawn(
      process.execPath,
      [this.bundleEntry, "--socket", socketPath, "--workspace", workspace, "--placement", "host", "--exit-with-stdin"],
      // The project-installed language servers come after a project's own bins (the agent looks in
      // node_modules/.bin and .venv first) and before the host's PATH.
      { stdio: ["pipe", "ignore", "pipe"], env: { ...process.env, PATH: [hostToolsBin, process.env.PATH ?? ""].join(delimiter) } },
    );
    const log = createWriteStream(join(this.logDir, `agent-${conversationId}.log`), { flags: "a" });
    const agent: HostAgent = {
      child,
      socketPath,
      alive: true,
      stderrTail: [],
      log,
      client: new AgentClient(socketPath, () => this.where(agent)),
    };
    child.stderr?.on("data", (chunk: Buffer) => {
      log.write(chunk);
      agent.stderrTail.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      agent.stderrTail.splice(0, Math.max(0, agent.stderrTail.length - 20));
    });
    child.stdin?.on("error", () => undefined);
    child.on("exit", (code, signal) => {
      agent.alive = false;
      agent.exit = signal ? `killed by ${signal}` : `exited with code ${code}`;
    });
    this.agents.set(conversationId, agent);
    const died = new Promise<never>((_, reject) =>
      child.once("exit", () =>
        reject(
          new EnclaveError(
            "placement_unavailable",
            `the host agent for conversation \`${conversationId}\` ${agent.exit} before it was ready:\n${agent.stderrTail.join("\n")}`,
          ),
        ),
      ),
    );
    died.catch(() => undefined);
    await Promise.race([agent.client.health(LIMITS.agentReadyTimeoutMs), died]);
    return agent;
  }
}
