// What every check of the egress audit reads: the outside view (engine, host kernel, gVisor's kernel)
// and the agent's inside report, with what is derived from them once, and the wording they share.
import type { SelfAuditResponse } from "@enclave/proto/gen/enclave/agent/v1/info.js";
import type { EnclosureRecord } from "../../model/conversation.js";
import type { EnclosureRuntime } from "../../model/enclosure.js";
import type { HostProcess, HostView, MountEntry } from "../../model/enclosure-views.js";
import { mountAt, parseIdMap } from "../../procfs/proc-tables.js";
import type { OutsideView } from "../audit-check.js";

/** The capabilities runsc gives its file proxy (runsc-gofer): CHOWN, DAC_OVERRIDE, DAC_READ_SEARCH,
 * FOWNER, FSETID and SYS_CHROOT. It serves the enclosure's files and runs nothing of the enclosure's. */
export const GOFER_CAPS = 0x4001fn;

export const list = (xs: readonly string[]): string => (xs.length ? xs.join(", ") : "none");
export const NOT_ASKED = "not reported by the agent (the outside half decides)";
export const bad = (e: Error | undefined): string => `could not be read: ${e?.message ?? "not read"}`;

export function hostProcessLabel(p: HostProcess): string {
  return `${p.pid} (${(p.argv[0] ?? "").split("/").at(-1) || p.exe || "?"})`;
}

/** "all 7 processes <what>" or the ones that are not, by pid. */
export function every<T>(
  xs: readonly T[],
  good: (x: T) => boolean,
  what: string,
  label: (x: T) => string,
  describe: (x: T) => string,
): { ok: boolean; text: string } {
  const offenders = xs.filter((x) => !good(x));
  if (!xs.length) return { ok: false, text: "no process found" };
  if (!offenders.length) return { ok: true, text: `all ${xs.length} process${xs.length === 1 ? "" : "es"} ${what}` };
  return {
    ok: false,
    text: `${offenders.length} of ${xs.length} not: ${offenders
      .slice(0, 5)
      .map((x) => `${label(x)} ${describe(x)}`)
      .join("; ")}${offenders.length > 5 ? "; …" : ""}`,
  };
}

/** gVisor's host processes: the sandbox (and its platform stubs) or the file proxy. */
export function gvisorRole(p: HostProcess): "sandbox" | "file proxy" | "stub" {
  if (p.argv[0] === "runsc-gofer") return "file proxy";
  if (p.argv[0] === "runsc-sandbox") return "sandbox";
  return "stub";
}

/** A user namespace of its own that maps no id to the host's root. */
export function confinedUserNamespace(p: HostProcess): boolean {
  return p.uidMap !== "" && parseIdMap(p.uidMap).every((m) => m.outside > 0);
}

export function cgroupText(host: HostView, what: string): string {
  return `host cgroup (${host.cgroup.version}) ${what}`;
}

export function tmpfsAt(mounts: readonly MountEntry[], path: string): boolean {
  return mountAt(mounts, path)?.fsType === "tmpfs";
}

export const mib = (bytes: number): string => `${Math.round(bytes / 1024 ** 2)} MiB`;

export const notShown = "not shown (gVisor has no cgroup files inside)";

/** The views, and what every check derives from them the same way. */
/** `expectedListening`: the egress proxy's listener ("tcp 127.0.0.1:PORT") while the conversation has an egress policy. */
export function checkView(outside: OutsideView, inside: SelfAuditResponse | Error, record: EnclosureRecord, expectedListening: readonly string[] = []) {
  const { info } = outside;
  const hc = info.HostConfig;
  const runtime: EnclosureRuntime = record.runtime;
  const gv = runtime === "runsc";
  const host = outside.host instanceof Error ? undefined : outside.host;
  const hostError = outside.host instanceof Error ? outside.host : undefined;
  const gvisor = outside.gvisor instanceof Error ? undefined : outside.gvisor;
  const gvisorError = gv ? (outside.gvisor instanceof Error ? outside.gvisor : outside.gvisor ? undefined : new Error("not read")) : undefined;
  const reg = outside.runsc instanceof Error ? undefined : outside.runsc;
  const ins = inside instanceof Error ? undefined : inside;
  const insideText = (f: (i: SelfAuditResponse) => string): string => (ins ? f(ins) : `the agent did not answer: ${(inside as Error).message}`);
  /** The kernel half: the host's (runc) or gVisor's (runsc), or why it could not be read. */
  const kernelError = gv ? (gvisorError ?? hostError) : hostError;
  const kernelName = gv ? "gVisor's kernel" : "host kernel";

  const securityOpt: string[] = hc.SecurityOpt ?? [];
  const seccompUnconfined = securityOpt.some((o) => /^seccomp[=:]unconfined$/.test(o));
  const [uid = -1, gid = -1] = (info.Config.User || "0:0").split(":").map(Number);
  const cpus = (hc.NanoCpus ?? 0) / 1e9;
  const sandbox = host?.processes.find((p) => p.pid === host.initPid);
  const sandboxFlag = (flag: string): boolean => !!sandbox?.argv.includes(flag);
  const hostNets = host?.networks ?? [];
  const hostListening = hostNets.flatMap((n) => n.listening);

  return {
    outside,
    inside,
    record,
    info,
    hc,
    runtime,
    gv,
    host,
    hostError,
    gvisor,
    gvisorError,
    reg,
    ins,
    insideText,
    kernelError,
    kernelName,
    securityOpt,
    seccompUnconfined,
    uid,
    gid,
    cpus,
    sandbox,
    sandboxFlag,
    hostNets,
    hostListening,
    expectedListening,
  };
}

export type CheckView = ReturnType<typeof checkView>;
