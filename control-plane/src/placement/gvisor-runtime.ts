// gVisor (runsc) as an enclosure runtime: how it must be registered with the Docker engine, checked
// before an enclosure is started under it so a missing or incomplete registration is one clear error.
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import type Docker from "dockerode";
import { EnclaveError } from "../errors.js";
import type { RunscRegistration } from "../model/enclosure-views.js";

/**
 * The flags `make docker` (images/ensure-docker.sh) registers runsc with: --network=none keeps
 * gVisor's own network stack off (runsc cannot start in a container's network namespace with it on).
 * Not --oci-seccomp: under Debian's runsc (2022-12) the engine's default profile stops every thread
 * from starting inside. Not --host-uds: the agent is reached through exec, no host socket is needed.
 */
export const RUNSC_RUNTIME_ARGS = ["--network=none"] as const;

const HOW_TO_REGISTER =
  `register it: \`make docker\` installs Debian's runsc (and images/runsc-for-docker.sh as /usr/local/bin/enclave-runsc, which the pause needs) and adds {"runtimes":{"runsc":{"path":"/usr/local/bin/enclave-runsc",` +
  `"runtimeArgs":${JSON.stringify(RUNSC_RUNTIME_ARGS)}}}} to /etc/docker/daemon.json, then sends dockerd SIGHUP ` +
  "(running containers keep running); or start the enclosure with runtime runc";

/** The engine's registration of runsc, or placement_unavailable saying how to register it. */
export async function runscRegistration(docker: Docker): Promise<RunscRegistration> {
  const info = (await docker.info()) as { Runtimes?: Record<string, { path?: string; runtimeArgs?: string[] }> };
  const reg = info.Runtimes?.runsc;
  if (!reg) throw new EnclaveError("placement_unavailable", `the Docker engine has no runtime \`runsc\` (gVisor) registered; ${HOW_TO_REGISTER}`);
  const runtimeArgs = reg.runtimeArgs ?? [];
  const missing = RUNSC_RUNTIME_ARGS.filter((a) => !runtimeArgs.includes(a));
  if (missing.length) {
    throw new EnclaveError("placement_unavailable", `the Docker engine registers runsc without ${missing.join(" ")}; ${HOW_TO_REGISTER}`);
  }
  const path = reg.path ?? "runsc";
  return { path, runtimeArgs, binary: wrappedRunsc(path) ?? path };
}

/** The wrapper's line naming the runsc it executes (images/runsc-for-docker.sh). */
const WRAPPED = /^RUNSC=\$\{ENCLAVE_RUNSC:-(\/[^}\s]+)\}$/m;

/**
 * The runsc binary our wrapper at `path` executes, when `path` is that wrapper on this machine (an
 * operator's file, read with no link followed and a bound on its size); undefined otherwise.
 */
export function wrappedRunsc(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    if (!fstatSync(fd).isFile()) return undefined;
    const head = Buffer.alloc(4096);
    const text = head.subarray(0, readSync(fd, head, 0, head.length, 0)).toString("utf8");
    return text.startsWith("#!") ? WRAPPED.exec(text)?.[1] : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
