// `enclave images verify`: starts a built image with testcontainers under the enclosure's hardening
// (the agent as its entrypoint, the bundle copied in as the driver does) and checks what the image
// promises: a non-root user, no setuid or setgid programs, every language server answers LSP
// initialize, every debug adapter answers DAP initialize, Python imports its data stack, and Node
// runs the agent (which answers Health through the same exec relay the control plane uses).
import { randomUUID } from "node:crypto";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Docker from "dockerode";
import type { StartedTestContainer } from "testcontainers";
import { AgentClient } from "@enclave/control-plane/agent-client/agent-client.js";
import { LIMITS } from "@enclave/control-plane/limits.js";
import { RELAY_COMMAND } from "@enclave/control-plane/placement/enclosure-settings.js";
import { IN_ENCLOSURE } from "@enclave/control-plane/model/enclosure.js";
import { ExecRelay } from "@enclave/control-plane/placement/exec-relay.js";
import { packFolder } from "@enclave/control-plane/placement/workspace-transfer.js";
import { clipLine } from "@enclave/control-plane/text/wording.js";
import { agentBundleDir } from "@enclave/control-plane/repo-paths.js";
import { hardenedSpec } from "../hardened-spec.js";
import { splitReference } from "@enclave/control-plane/image-set/image-records.js";
import { HardenedContainer } from "./hardened-container.js";
import { debugAdapter, IMAGE_PROMISES, type ImagePromises, languageServer } from "./image-promises.js";
import { PROBE_SCRIPT } from "./probe-script.js";

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

export interface Verification {
  image: string;
  checks: Check[];
  ok: boolean;
}

export const VERIFY_RUN_LABEL = "org.enclave.verify";

/** How long one server or adapter gets to answer initialize (a cold pyright on one CPU takes seconds). */
const PROBE_TIMEOUT_MS = 60_000;

interface ProbeAnswer {
  ok: boolean;
  summary?: string;
  capabilities?: number;
  why?: string;
  stderr?: string;
}

/** A user string is root when its uid part is empty, 0 or root. */
export function isRootUser(user: string): boolean {
  const uid = user.split(":")[0]?.trim() ?? "";
  return uid === "" || uid === "0" || uid === "root";
}

async function probe(container: StartedTestContainer, user: string, mode: "lsp" | "dap", candidates: string[][], transport: string): Promise<ProbeAnswer> {
  const r = await container.exec(["node", "-e", PROBE_SCRIPT, mode, JSON.stringify(candidates), transport, String(PROBE_TIMEOUT_MS)], { user });
  const line = r.stdout.trim().split("\n").pop() ?? "";
  try {
    const answer = JSON.parse(line) as ProbeAnswer;
    if (typeof answer.ok === "boolean") return answer;
  } catch {
    // Not the probe's line: said below.
  }
  return { ok: false, why: `the probe printed no answer (exit ${r.exitCode}): ${(r.stderr || r.stdout).slice(-500)}` };
}

function probeDetail(a: ProbeAnswer): string {
  if (a.ok) return `${clipLine(a.summary ?? "", 80)} (${a.capabilities} capabilities)`;
  return `${a.why ?? ""}${a.stderr ? `; stderr: ${clipLine(a.stderr, 500)}` : ""}`;
}

async function agentHealth(docker: Docker, containerId: string, user: string): Promise<Check> {
  const socketDir = mkdtempSync(join(tmpdir(), "enclave-verify-"));
  let client: AgentClient | undefined;
  try {
    const relay = await ExecRelay.open(join(socketDir, "agent.sock"), {
      container: docker.getContainer(containerId),
      demux: (stream, stdout, stderr) => docker.modem.demuxStream(stream, stdout, stderr),
      user,
      command: RELAY_COMMAND,
      log: () => undefined,
    });
    client = new AgentClient(
      relay.socketPath,
      () => "images verify",
      () => relay.close(),
    );
    const health = await client.health(LIMITS.agentReadyTimeoutMs);
    const ok = health.placement === "enclosure" && health.uid !== 0;
    return {
      name: "node runs the agent",
      ok,
      detail: `agent ${health.version} on Node ${health.nodeVersion}, uid ${health.uid}, placement ${health.placement}`,
    };
  } catch (err) {
    return { name: "node runs the agent", ok: false, detail: (err as Error).message };
  } finally {
    client?.close();
    rmSync(socketDir, { recursive: true, force: true });
  }
}

/** Checks `image` against what its name promises (or against `only`, a narrower set, for tests). */
export async function verifyImage(docker: Docker, image: string, only?: ImagePromises): Promise<Verification> {
  const { name } = splitReference(image);
  const promises = only ?? IMAGE_PROMISES[name];
  const checks: Check[] = [];
  if (!promises) {
    return {
      image,
      ok: false,
      checks: [{ name: "promises", ok: false, detail: `${name} promises nothing to verify (verifiable: ${Object.keys(IMAGE_PROMISES).join(", ")})` }],
    };
  }
  let info: Docker.ImageInspectInfo;
  try {
    info = await docker.getImage(image).inspect();
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode !== 404) throw err;
    return {
      image,
      ok: false,
      checks: [{ name: "the image is on this engine", ok: false, detail: `no image ${image} here: build it (make images) or pull it first` }],
    };
  }
  const imageUser = info.Config.User ?? "";
  checks.push({ name: "image user is not root", ok: !isRootUser(imageUser), detail: `USER ${imageUser || "(unset: root)"}` });

  const workspace = mkdtempSync(join(tmpdir(), "enclave-verify-ws-"));
  // A label of this verification's own: whatever start left behind, even half-made, is found by it.
  const runLabel = { [VERIFY_RUN_LABEL]: randomUUID() };
  const spec = hardenedSpec({ image, workspace, agentVolume: true, labels: runLabel });
  const user = spec.User ?? "1000:1000";
  const [uid, gid] = user.split(":").map(Number);
  chownSync(workspace, uid ?? 1000, gid ?? 1000);
  let container: StartedTestContainer | undefined;
  try {
    container = await new HardenedContainer(spec)
      .withCopyArchivesToContainer([{ tar: packFolder(agentBundleDir, 0, 0), target: IN_ENCLOSURE.agentDir }])
      .withStartupTimeout(LIMITS.agentReadyTimeoutMs)
      .start();

    const id = await container.exec(["id", "-u"], { user });
    checks.push({ name: "runs as a non-root user", ok: id.exitCode === 0 && id.stdout.trim() !== "0", detail: `uid ${id.stdout.trim()}` });

    const suid = await container.exec(["sh", "-c", "find / -xdev -type f -perm /6000 2>/dev/null; true"], { user });
    const found = suid.stdout.split("\n").filter(Boolean);
    checks.push({ name: "no setuid or setgid programs", ok: found.length === 0, detail: found.length ? found.slice(0, 20).join(", ") : "none found" });

    for (const id of promises.languageServers) {
      const spec = languageServer(id);
      const a = await probe(container, user, "lsp", [spec.command], "stdio");
      checks.push({ name: `language server ${id} answers initialize`, ok: a.ok, detail: probeDetail(a) });
    }
    for (const id of promises.debugAdapters) {
      const spec = debugAdapter(id);
      const a = await probe(container, user, "dap", spec.commands, spec.transport);
      checks.push({ name: `debug adapter ${id} answers initialize`, ok: a.ok, detail: probeDetail(a) });
    }

    const modules = promises.pythonModules;
    const py = await container.exec(
      ["python3", "-c", `import importlib\nfor m in ${JSON.stringify(modules)}:\n    print(m, getattr(importlib.import_module(m), "__version__", "?"))`],
      { user },
    );
    checks.push({
      name: `python has ${modules.join(", ")}`,
      ok: py.exitCode === 0,
      detail: py.exitCode === 0 ? py.stdout.trim().split("\n").join(", ") : py.stderr.trim().split("\n").slice(-3).join(" "),
    });

    const node = await container.exec(["node", "--version"], { user });
    const major = Number(/^v(\d+)/.exec(node.stdout.trim())?.[1] ?? 0);
    checks.push({
      name: `node ${promises.nodeMajorAtLeast} or later`,
      ok: major >= promises.nodeMajorAtLeast,
      detail: node.stdout.trim() || node.stderr.trim(),
    });

    checks.push(await agentHealth(docker, container.getId(), user));
  } catch (err) {
    checks.push({ name: "the image starts under the enclosure's hardening", ok: false, detail: (err as Error).message });
  } finally {
    if (container) await container.stop({ remove: true, removeVolumes: true, timeout: 1 }).catch(() => undefined);
    const left = await docker.listContainers({ all: true, filters: { label: [`${VERIFY_RUN_LABEL}=${runLabel[VERIFY_RUN_LABEL]}`] } });
    for (const c of left)
      await docker
        .getContainer(c.Id)
        .remove({ force: true, v: true })
        .catch(() => undefined);
    rmSync(workspace, { recursive: true, force: true });
  }
  return { image, checks, ok: checks.every((c) => c.ok) };
}
