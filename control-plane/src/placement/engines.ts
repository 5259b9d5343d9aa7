// The Docker engines enclosures may run on, and which one a new enclosure goes to. One engine is the
// default (DOCKER_HOST / DOCKER_TLS_VERIFY / DOCKER_CERT_PATH, as the docker CLI reads them, or the
// local socket); ENCLAVE_ENGINES_FILE names a JSON list of several. An engine reached over TCP is
// "remote": the control plane shares no filesystem with it and cannot read its machine's /proc, so
// bind mode, loop-device disks and the host kernel's half of the audit are not offered there.
// A new enclosure goes to the engine with room (below its cap of running enclosures of ours) that
// reports the least load (its own count of running containers), and stays there: the engine's name
// is recorded on the enclosure.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type Docker from "dockerode";
import { orTimeout } from "@enclave/proto/wait.js";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { connectDocker, engineClient } from "./docker-connection.js";
import type { DockerDriver } from "./docker-driver.js";
import type { EnclosureRequest } from "./enclosure-settings.js";

export interface EngineTls {
  /** PEM files: the CA that signed the engine's certificate, and the control plane's client pair. */
  ca: string;
  cert: string;
  key: string;
}

export interface EngineConfig {
  /** Recorded on each enclosure started there: letters, digits, '-', '_', '.'. */
  name: string;
  /** tcp://HOST:PORT, unix:///PATH, or "" for the docker CLI's own default (DOCKER_HOST or the local socket). */
  host: string;
  tls?: EngineTls;
  /** Most enclosures of this control plane running there at once; 0 for no cap. */
  cap: number;
}

/** What a driver knows of the engine it drives. */
export interface EngineIdentity {
  name: string;
  /** Reached over TCP: no shared filesystem, no view of its machine's kernel. */
  remote: boolean;
}

export const DEFAULT_ENGINE = "default";
export const LOCAL_ENGINE: EngineIdentity = { name: DEFAULT_ENGINE, remote: false };

const NAME_RE = /^[A-Za-z0-9_.-]{1,64}$/;

function configError(message: string): Error {
  return new Error(`engines: ${message}`);
}

/** TCP hosts are remote; a unix socket (or the default, when DOCKER_HOST names none) is this machine's. */
export function isRemoteHost(host: string): boolean {
  return /^(tcp|https?):\/\//.test(host);
}

/** The engines from the environment: ENCLAVE_ENGINES_FILE's list, else one from the docker CLI's variables. */
export function enginesFromEnv(env: NodeJS.ProcessEnv = process.env): EngineConfig[] {
  const file = env.ENCLAVE_ENGINES_FILE ?? "";
  if (file) return parseEngines(readFileSync(file, "utf8"), file);
  const host = env.DOCKER_HOST ?? "";
  const certDir = env.DOCKER_CERT_PATH ?? "";
  const tls = env.DOCKER_TLS_VERIFY === "1" && isRemoteHost(host)
    ? { ca: join(certDir, "ca.pem"), cert: join(certDir, "cert.pem"), key: join(certDir, "key.pem") }
    : undefined;
  if (env.DOCKER_TLS_VERIFY === "1" && isRemoteHost(host) && !certDir) {
    throw configError("DOCKER_TLS_VERIFY=1 needs DOCKER_CERT_PATH (a folder with ca.pem, cert.pem and key.pem)");
  }
  const cap = Number(env.ENCLAVE_ENGINE_CAP ?? 0);
  if (!Number.isInteger(cap) || cap < 0) throw configError(`ENCLAVE_ENGINE_CAP=${env.ENCLAVE_ENGINE_CAP} is not a whole number of 0 or more`);
  return [{ name: DEFAULT_ENGINE, host, ...(tls ? { tls } : {}), cap }];
}

/**
 * The engines file: a JSON list of {name, host, ca?, cert?, key?, cap?}; TLS files are all given or
 * none. A TCP engine without them is refused: its API is root on that machine.
 */
export function parseEngines(text: string, where: string): EngineConfig[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw configError(`${where} is not JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(raw) || raw.length === 0) throw configError(`${where} must be a non-empty JSON list of engines`);
  const seen = new Set<string>();
  return raw.map((e: unknown, i) => {
    const o = (typeof e === "object" && e !== null ? e : {}) as Record<string, unknown>;
    const str = (k: string): string => (typeof o[k] === "string" ? (o[k] as string) : "");
    const name = str("name");
    if (!NAME_RE.test(name)) throw configError(`${where}: engine ${i + 1} needs a name of 1–64 letters, digits, '-', '_' or '.'`);
    if (seen.has(name)) throw configError(`${where}: engine name \`${name}\` is used twice`);
    seen.add(name);
    const host = str("host");
    if (host && !isRemoteHost(host) && !host.startsWith("unix://")) throw configError(`${where}: engine \`${name}\`: host \`${host}\` is not tcp://HOST:PORT or unix:///PATH`);
    const files = [str("ca"), str("cert"), str("key")];
    if (files.some(Boolean) && !files.every(Boolean)) throw configError(`${where}: engine \`${name}\`: give ca, cert and key together`);
    if (isRemoteHost(host) && !files.every(Boolean)) throw configError(`${where}: engine \`${name}\` is reached over TCP and needs TLS (ca, cert, key)`);
    const cap = o.cap === undefined ? 0 : Number(o.cap);
    if (!Number.isInteger(cap) || cap < 0) throw configError(`${where}: engine \`${name}\`: cap must be a whole number of 0 or more`);
    return { name, host, ...(files.every(Boolean) ? { tls: { ca: files[0] as string, cert: files[1] as string, key: files[2] as string } } : {}), cap };
  });
}

/** A dockerode client for the engine; TLS files are read now, so a missing one is said at once. */
export function dockerFor(cfg: EngineConfig): Docker {
  if (!cfg.host) return engineClient();
  if (cfg.host.startsWith("unix://")) return engineClient({ socketPath: cfg.host.slice("unix://".length) });
  const url = new URL(cfg.host.replace(/^tcp:/, cfg.tls ? "https:" : "http:"));
  const read = (file: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new EnclaveError("placement_unavailable", `engine \`${cfg.name}\`: cannot read TLS file ${file}: ${(err as Error).message}`);
    }
  };
  return engineClient({
    protocol: cfg.tls ? "https" : "http",
    host: url.hostname,
    port: url.port || (cfg.tls ? 2376 : 2375),
    ...(cfg.tls ? { ca: read(cfg.tls.ca), cert: read(cfg.tls.cert), key: read(cfg.tls.key) } : {}),
  });
}

/** Rejects with placement_unavailable when the engine does not answer in time (a vanished host must not hang a call). */
export function withinDeadline<T>(what: Promise<T>, label: string, ms: number = LIMITS.engineAnswerTimeoutMs): Promise<T> {
  return orTimeout(what, ms, () => new EnclaveError("placement_unavailable", `${label} did not answer within ${ms} ms`));
}

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
        new EnclaveError("placement_unavailable", `the enclosure was started on engine \`${name}\`, which is no longer configured (engines now: ${this.names().join(", ")}); add it back to reach the enclosure`),
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
