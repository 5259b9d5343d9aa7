// Which engine a new enclosure goes to: the one with room (below its cap of running enclosures of
// ours) that reports the least load (its own count of running containers); it stays there, the
// engine's name recorded on the enclosure. Apart from engines.ts (configuration and clients), which
// the Docker driver itself uses.
import type Docker from "dockerode";
import { EnclaveError } from "../errors.js";
import type { EnclosureRequest } from "../model/enclosure.js";
import { DEFAULT_ENGINE, type EngineIdentity } from "../model/engine.js";
import type { DockerDriver } from "./docker-driver.js";
import { connectDocker } from "./docker-connection.js";
import { configError, dockerFor, type EngineConfig, isRemoteHost, withinDeadline } from "./engines.js";

/** What placement needs of the engines. */
export interface EnginePort {
  /** The driver of the engine an enclosure was recorded on (none recorded: the default engine). */
  driver(engine?: string): Promise<DockerDriver>;
  /** The engine a new enclosure goes to. */
  choose(req: EnclosureRequest): Promise<DockerDriver>;
  /** Every configured engine's name, the default first. */
  names(): string[];
}

export type MakeDriver = (docker: Docker, engine: EngineIdentity) => DockerDriver;

export interface EngineLoad {
  name: string;
  remote: boolean;
  cap: number;
  /** The engine's own count of running containers (everyone's), or -1 when it did not answer. */
  running: number;
  /** Running enclosures of this control plane there. */
  ours: number;
  /** Why it was passed over, or "" when it has room. */
  skipped: string;
  /** Passed over only because the start asked for bind mode and the engine is remote. */
  bindRefused: boolean;
}

export class Engines implements EnginePort {
  private readonly drivers = new Map<string, Promise<DockerDriver>>();
  private readonly configs: Map<string, EngineConfig>;

  constructor(
    configs: EngineConfig[],
    private readonly make: MakeDriver,
  ) {
    if (configs.length === 0) throw configError("no engine configured");
    this.configs = new Map(configs.map((c) => [c.name, c]));
  }

  names(): string[] {
    return [...this.configs.keys()];
  }

  identity(name: string): EngineIdentity {
    const cfg = this.configs.get(name);
    return { name, remote: !!cfg && isRemoteHost(cfg.host) };
  }

  driver(engine?: string): Promise<DockerDriver> {
    const name = engine ?? this.names()[0] ?? DEFAULT_ENGINE;
    const cfg = this.configs.get(name);
    if (!cfg) {
      return Promise.reject(
        new EnclaveError(
          "placement_unavailable",
          `the enclosure was started on engine \`${name}\`, which is no longer configured (engines now: ${this.names().join(", ")}); add it back to reach the enclosure`,
        ),
      );
    }
    let d = this.drivers.get(name);
    if (!d) {
      const identity = this.identity(name);
      // The local default keeps its ping and its clear "no engine" error; a remote engine's client is
      // made without a round trip (dockerode connects per call), so an engine that is down later is
      // found by the call that needs it, under a deadline.
      d = (identity.remote || cfg.host ? Promise.resolve(dockerFor(cfg)) : connectDocker()).then(
        (docker) => this.make(docker, identity),
        (err: unknown) => {
          this.drivers.delete(name);
          throw err instanceof EnclaveError ? err : new EnclaveError("placement_unavailable", (err as Error).message);
        },
      );
      this.drivers.set(name, d);
    }
    return d;
  }

  /** Each engine's load as it reports it, and whether it has room. */
  async loads(req: EnclosureRequest = {}): Promise<EngineLoad[]> {
    return Promise.all(
      this.names().map(async (name): Promise<EngineLoad> => {
        const cfg = this.configs.get(name) as EngineConfig;
        const identity = this.identity(name);
        const base = { name, remote: identity.remote, cap: cfg.cap, running: -1, ours: 0, bindRefused: false };
        if (identity.remote && req.workspaceMode === "bind") return { ...base, skipped: "is remote (bind mode needs a local engine)", bindRefused: true };
        try {
          const driver = await this.driver(name);
          const [info, ours] = await withinDeadline(Promise.all([driver.engineInfo(), driver.managedContainers()]), `engine \`${name}\``);
          const running = info.ContainersRunning ?? 0;
          const oursRunning = ours.filter((c) => c.running).length;
          const full = cfg.cap > 0 && oursRunning >= cfg.cap;
          return { ...base, running, ours: oursRunning, skipped: full ? `at its cap of ${cfg.cap} enclosure(s)` : "" };
        } catch (err) {
          return { ...base, skipped: `does not answer: ${(err as Error).message}` };
        }
      }),
    );
  }

  async choose(req: EnclosureRequest): Promise<DockerDriver> {
    // With one engine there is nothing to weigh: its own errors (no engine, bind on a remote one)
    // are clearer than "no engine has room".
    if (this.configs.size === 1 && (this.configs.values().next().value as EngineConfig).cap === 0) return this.driver();
    const loads = await this.loads(req);
    const open = loads.filter((l) => !l.skipped);
    if (open.length === 0 && loads.every((l) => l.bindRefused)) {
      throw new EnclaveError(
        "remote_engine_unsupported",
        `workspace_mode bind mounts a folder of this machine, and every configured engine (${loads.map((l) => l.name).join(", ")}) is remote: use workspace_mode copy`,
      );
    }
    if (open.length === 0) {
      throw new EnclaveError(
        "placement_unavailable",
        `no Docker engine has room for another enclosure: ${loads.map((l) => `${l.name} ${l.skipped}`).join("; ")}. ` +
          "Stop an enclosure, raise an engine's cap, or add an engine (ENCLAVE_ENGINES_FILE).",
      );
    }
    // Least loaded by the engine's own count; among equals, the one listed first.
    const best = open.reduce((a, b) => (b.running < a.running ? b : a));
    return this.driver(best.name);
  }
}
