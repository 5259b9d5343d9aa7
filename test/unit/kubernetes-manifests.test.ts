// docs/kubernetes/*.yaml, checked with no cluster: every object against the Kubernetes OpenAPI
// schemas (kubernetes-models), with unknown fields refused too (the schemas allow them, the API
// server drops them silently, and a misspelt hardening field would then be no hardening at all);
// and the enclosure Pod's hardening against what the Docker driver's own option builder applies
// (enclosure-settings.ts with the defaults of `enclave serve`), so the design cannot drift from
// the code. Each check is also shown failing on a broken copy.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ContainerCreateOptions } from "dockerode";
import * as core from "kubernetes-models/v1";
import * as networking from "kubernetes-models/networking.k8s.io/v1";
import * as node from "kubernetes-models/node.k8s.io/v1";
import * as rbac from "kubernetes-models/rbac.authorization.k8s.io/v1";
import { parseAllDocuments } from "yaml";
import { beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@enclave/control-plane/config.js";
import { ENCLOSURE_RUNTIMES, type EnclosureDefaults, IN_ENCLOSURE } from "@enclave/control-plane/model/enclosure.js";
import { LABELS } from "@enclave/control-plane/model/labels.js";
import { containerSpec, resolveSettings } from "@enclave/control-plane/placement/enclosure-settings.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };
type ModelClass = new (data: unknown) => { validate(): void };

const DIR = join(repoRoot, "docs", "kubernetes");

interface Manifest {
  file: string;
  object: Obj;
}

function loadManifests(): Manifest[] {
  const out: Manifest[] = [];
  for (const file of readdirSync(DIR)
    .filter((f) => f.endsWith(".yaml"))
    .sort()) {
    for (const doc of parseAllDocuments(readFileSync(join(DIR, file), "utf8"))) {
      if (doc.errors.length) throw new Error(`${file}: ${doc.errors.map((e) => e.message).join("; ")}`);
      out.push({ file, object: doc.toJS() as Obj });
    }
  }
  return out;
}

/** The API groups the manifests use, as kubernetes-models ships them. */
const GROUPS: Record<string, Record<string, unknown>> = {
  v1: core,
  "networking.k8s.io/v1": networking,
  "node.k8s.io/v1": node,
  "rbac.authorization.k8s.io/v1": rbac,
};

/** kubernetes-models' class for apiVersion and kind ("v1" Pod → kubernetes-models/v1's Pod). */
function modelFor(o: Obj): ModelClass {
  const apiVersion = String(o.apiVersion);
  const kind = String(o.kind);
  const cls = GROUPS[apiVersion]?.[kind];
  if (typeof cls !== "function") throw new Error(`${apiVersion} ${kind}: not a type the manifest test knows (add its group to GROUPS)`);
  return cls as ModelClass;
}

/** The schema's own errors (wrong types, missing required fields, values outside an enum), or "". */
function schemaErrors(cls: ModelClass, o: Obj): string {
  try {
    new cls(structuredClone(o)).validate();
    return "";
  } catch (err) {
    return (err as Error).message;
  }
}

function setAt(o: Obj, path: readonly (string | number)[], value: Json): Obj {
  const copy = structuredClone(o);
  let at: Json = copy;
  for (const k of path.slice(0, -1)) at = (at as Record<string | number, Json>)[k] as Json;
  (at as Record<string | number, Json>)[path.at(-1) as string | number] = value;
  return copy;
}

function paths(v: Json, prefix: (string | number)[] = []): (string | number)[][] {
  if (v === null || typeof v !== "object") return [];
  const entries: [string | number, Json][] = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
  return entries.flatMap(([k, x]) => [[...prefix, k], ...paths(x, [...prefix, k])]);
}

/**
 * Fields the schemas do not know. The schemas leave additional properties open, so each field is
 * probed instead: a known field has a type, and a boolean or a number put in its place is refused;
 * a field the schema does not describe takes both.
 */
function unknownFields(cls: ModelClass, o: Obj): string[] {
  return paths(o)
    .filter((p) => typeof p.at(-1) === "string" && !(p.length === 1 && (p[0] === "apiVersion" || p[0] === "kind")))
    .filter((p) => schemaErrors(cls, setAt(o, p, true)) === "" && schemaErrors(cls, setAt(o, p, 42)) === "")
    .map((p) => p.join("."));
}

/** A resource quantity in plain units (bytes, cores). */
function quantity(q: Json | undefined): number {
  const m = /^([0-9.]+)(m|Ki|Mi|Gi|Ti|k|M|G)?$/.exec(String(q ?? ""));
  if (!m) return NaN;
  const scale: Record<string, number> = { m: 1e-3, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, k: 1e3, M: 1e6, G: 1e9 };
  return Number(m[1]) * (m[2] ? (scale[m[2]] ?? NaN) : 1);
}

const obj = (v: Json | undefined): Obj => (v && typeof v === "object" && !Array.isArray(v) ? v : {});
const arr = (v: Json | undefined): Json[] => (Array.isArray(v) ? v : []);

/** The size= of a Docker tmpfs option string. */
function tmpfsSize(opts: string): number {
  return Number(/(?:^|,)size=(\d+)/.exec(opts)?.[1] ?? NaN);
}

/**
 * Where the Pod does not apply what the Docker driver applies. The Docker side is the driver's own
 * container options for a copy-mode enclosure under runsc with the agent baked in (the Pod's case).
 */
function hardeningDrift(pod: Obj, docker: ContainerCreateOptions, runtimeClass: Obj | undefined, policy: Obj | undefined): string[] {
  const out: string[] = [];
  const want = (what: string, actual: unknown, expected: unknown): void => {
    if (JSON.stringify(actual) !== JSON.stringify(expected))
      out.push(`${what}: ${JSON.stringify(actual)}, the Docker driver applies ${JSON.stringify(expected)}`);
  };
  const hc = docker.HostConfig ?? {};
  const spec = obj(pod.spec);
  const containers = arr(spec.containers).map(obj);
  want("containers", containers.length, 1);
  const c = containers[0] ?? {};
  const sc = obj(c.securityContext);
  const podSc = obj(spec.securityContext);
  const [uid, gid] = String(docker.User).split(":").map(Number);
  want("runAsUser", sc.runAsUser, uid);
  want("runAsGroup", sc.runAsGroup, gid);
  want("pod runAsUser", podSc.runAsUser ?? uid, uid);
  want("pod runAsGroup", podSc.runAsGroup ?? gid, gid);
  want("runAsNonRoot", sc.runAsNonRoot, (uid ?? 0) > 0);
  want("capabilities.drop", arr(obj(sc.capabilities).drop), hc.CapDrop ?? []);
  want("capabilities.add", arr(obj(sc.capabilities).add), hc.CapAdd ?? []);
  want("allowPrivilegeEscalation", sc.allowPrivilegeEscalation, !(hc.SecurityOpt ?? []).includes("no-new-privileges:true"));
  want("readOnlyRootFilesystem", sc.readOnlyRootFilesystem, hc.ReadonlyRootfs === true);
  want("privileged", sc.privileged ?? false, hc.Privileged === true);
  const unconfined = (hc.SecurityOpt ?? []).some((o: string) => /^seccomp[=:]unconfined$/.test(o));
  want("seccompProfile", obj(sc.seccompProfile).type ?? obj(podSc.seccompProfile).type, unconfined ? "Unconfined" : "RuntimeDefault");
  // runtime: runsc in Docker is the gvisor RuntimeClass, whose handler is runsc.
  want("runtime", spec.runtimeClassName ? obj(runtimeClass).handler : "runc", hc.Runtime);
  if (!(ENCLOSURE_RUNTIMES as readonly string[]).includes(String(hc.Runtime))) out.push(`runtime ${hc.Runtime} is not an enclosure runtime`);
  // --init: the pause process reaps as docker-init does.
  want("shareProcessNamespace (Docker's Init)", spec.shareProcessNamespace === true, hc.Init === true);
  // network: none in Docker; no host network and a deny-all policy that selects the pod.
  want("network mode", hc.NetworkMode, "none");
  want("hostNetwork", spec.hostNetwork ?? false, false);
  want("hostPID", spec.hostPID ?? false, false);
  want("hostIPC", spec.hostIPC ?? false, false);
  want("automountServiceAccountToken", spec.automountServiceAccountToken, false);
  const ps = obj(policy?.spec);
  const selects = Object.entries(obj(obj(ps.podSelector).matchLabels)).every(([k, v]) => obj(obj(pod.metadata).labels)[k] === v);
  want("deny-all NetworkPolicy selects the pod", Boolean(policy) && selects, true);
  want("NetworkPolicy policyTypes", [...arr(ps.policyTypes)].sort(), ["Egress", "Ingress"]);
  want("NetworkPolicy rules", [arr(ps.ingress).length, arr(ps.egress).length], [0, 0]);
  want("NetworkPolicy namespace", obj(policy?.metadata).namespace, obj(pod.metadata).namespace);
  // labels the driver puts on its containers
  for (const key of Object.values(LABELS)) if (!(key in obj(obj(pod.metadata).labels))) out.push(`label ${key} missing`);
  // limits: requests equal to limits, as Docker's are hard limits
  const res = obj(c.resources);
  want("limits.memory", quantity(obj(res.limits).memory), hc.Memory);
  want("requests.memory", quantity(obj(res.requests).memory), hc.Memory);
  want("no swap (MemorySwap = Memory)", hc.MemorySwap, hc.Memory);
  want("limits.cpu", quantity(obj(res.limits).cpu), (hc.NanoCpus ?? 0) / 1e9);
  want("requests.cpu", quantity(obj(res.requests).cpu), (hc.NanoCpus ?? 0) / 1e9);
  // process: command, arguments, folder, environment
  want("command", c.command, docker.Entrypoint);
  want("args", c.args, docker.Cmd);
  want("workingDir", c.workingDir, docker.WorkingDir);
  want(
    "env",
    arr(c.env).map((e) => `${obj(e).name}=${obj(e).value}`),
    docker.Env,
  );
  // mounts: the same places, tmpfs as memory-backed emptyDirs of the same size, the workspace as a sized emptyDir
  const volumes = new Map(arr(spec.volumes).map((v) => [String(obj(v).name), obj(v)]));
  const mounts = new Map(arr(c.volumeMounts).map((m) => [String(obj(m).mountPath), volumes.get(String(obj(m).name))]));
  const dockerTargets = [...Object.keys(hc.Tmpfs ?? {}), ...(hc.Mounts ?? []).map((m) => m.Target), ...(hc.Binds ?? []).map((b) => b.split(":")[1])].sort();
  want("mount points", [...mounts.keys()].sort(), dockerTargets);
  for (const [path, opts] of Object.entries(hc.Tmpfs ?? {})) {
    const ed = obj(mounts.get(path)?.emptyDir);
    want(`${path} medium`, ed.medium, "Memory");
    want(`${path} sizeLimit`, quantity(ed.sizeLimit), tmpfsSize(opts));
  }
  const ws = obj(mounts.get(IN_ENCLOSURE.workspace)?.emptyDir);
  want("workspace emptyDir on disk", ws.medium ?? "", "");
  return out;
}

let manifests: Manifest[];
let defaults: EnclosureDefaults;

beforeAll(() => {
  manifests = loadManifests();
  // The defaults of `enclave serve` with no ENCLAVE_* overrides.
  const saved = Object.entries(process.env).filter(([k]) => k.startsWith("ENCLAVE_"));
  for (const [k] of saved) delete process.env[k];
  try {
    defaults = loadConfig().enclosure;
  } finally {
    for (const [k, v] of saved) process.env[k] = v;
  }
});

function find(kind: string): Obj {
  const m = manifests.find((x) => x.object.kind === kind);
  if (!m) throw new Error(`no ${kind} in docs/kubernetes`);
  return m.object;
}

function dockerSpec(): ContainerCreateOptions {
  const settings = resolveSettings({ runtime: "runsc", workspaceMode: "copy", agentDelivery: "baked" }, defaults, "enclave-agent:test");
  return containerSpec(settings, { workspace: "/unused", workspaceVolume: "workspace-volume" }, {});
}

describe("docs/kubernetes manifests", () => {
  it("every object is valid against the Kubernetes OpenAPI schemas, with no field the schemas do not know", () => {
    expect(manifests.length).toBeGreaterThanOrEqual(8);
    for (const { file, object } of manifests) {
      const cls = modelFor(object);
      expect(schemaErrors(cls, object), `${file} ${String(object.kind)}`).toBe("");
      expect(unknownFields(cls, object), `${file} ${String(object.kind)}`).toEqual([]);
    }
  });

  it("the checks fail on an invalid field: a wrong type, a value outside an enum, a misspelt field", () => {
    const pod = find("Pod");
    const Pod = modelFor(pod);
    expect(schemaErrors(Pod, setAt(pod, ["spec", "containers", 0, "securityContext", "readOnlyRootFilesystem"], "yes"))).toMatch(
      /readOnlyRootFilesystem must be boolean/,
    );
    expect(schemaErrors(Pod, setAt(pod, ["spec", "securityContext", "seccompProfile", "type"], "Sometimes"))).toMatch(
      /seccompProfile\/type must be equal to one of the allowed values/,
    );
    const misspelt = structuredClone(pod);
    obj(obj(arr(obj(misspelt.spec).containers)[0]).securityContext).readOnlyRootFileSystem = true;
    expect(schemaErrors(Pod, misspelt)).toBe("");
    expect(unknownFields(Pod, misspelt)).toEqual(["spec.containers.0.securityContext.readOnlyRootFileSystem"]);
    const policy = find("NetworkPolicy");
    const NetworkPolicy = modelFor(policy);
    expect(schemaErrors(NetworkPolicy, setAt(policy, ["spec", "policyTypes"], "Egress"))).not.toBe("");
  });

  it("the enclosure Pod applies every hardening item the Docker driver applies, with the same values", () => {
    expect(hardeningDrift(find("Pod"), dockerSpec(), find("RuntimeClass"), find("NetworkPolicy"))).toEqual([]);
  });

  it("the cross-check fails when the Pod or the driver changes", () => {
    const pod = find("Pod");
    const rc = find("RuntimeClass");
    const np = find("NetworkPolicy");
    const sc = ["spec", "containers", 0, "securityContext"];
    expect(hardeningDrift(setAt(pod, [...sc, "allowPrivilegeEscalation"], true), dockerSpec(), rc, np)).toEqual([
      "allowPrivilegeEscalation: true, the Docker driver applies false",
    ]);
    expect(hardeningDrift(setAt(pod, ["spec", "volumes", 1, "emptyDir", "sizeLimit"], "1Gi"), dockerSpec(), rc, np)).toEqual([
      `/tmp sizeLimit: ${1024 ** 3}, the Docker driver applies ${defaults.tmpSizeBytes}`,
    ]);
    expect(hardeningDrift(pod, dockerSpec(), rc, setAt(np, ["spec", "egress"], [{}]))).toEqual(["NetworkPolicy rules: [0,1], the Docker driver applies [0,0]"]);
    // The driver's side moving (a capability kept, more memory) shows up the same way.
    const driver = dockerSpec();
    driver.HostConfig = { ...driver.HostConfig, CapAdd: ["NET_RAW"], Memory: 4 * 1024 ** 3, MemorySwap: 4 * 1024 ** 3 };
    expect(hardeningDrift(pod, driver, rc, np)).toEqual([
      'capabilities.add: [], the Docker driver applies ["NET_RAW"]',
      `limits.memory: ${2 * 1024 ** 3}, the Docker driver applies ${4 * 1024 ** 3}`,
      `requests.memory: ${2 * 1024 ** 3}, the Docker driver applies ${4 * 1024 ** 3}`,
    ]);
  });

  it("the workspace emptyDir is sized as copy mode's volume, and quotas bound what a tenant can run", () => {
    const pod = find("Pod");
    const ws = arr(obj(pod.spec).volumes)
      .map(obj)
      .find((v) => v.name === "workspace");
    expect(quantity(obj(ws?.emptyDir).sizeLimit)).toBe(defaults.diskBytes);
    const quota = obj(obj(find("ResourceQuota").spec).hard);
    expect(Number(quota.pods)).toBeGreaterThan(0);
    // Every enclosure's limits fit the tenant's quota at least once.
    const limits = obj(obj(arr(obj(pod.spec).containers).map(obj)[0]?.resources).limits);
    expect(quantity(quota["limits.memory"])).toBeGreaterThanOrEqual(quantity(limits.memory));
    expect(quantity(quota["limits.cpu"])).toBeGreaterThanOrEqual(quantity(limits.cpu));
    const ns = find("Namespace");
    expect(obj(obj(ns.metadata).labels)["pod-security.kubernetes.io/enforce"]).toBe("restricted");
  });
});
