// What a built image holds, read by running the image itself (hardened, no network) with a small
// shell script: dpkg-query's list of installed packages, the npm lockfiles of its tool folders, and
// where its language servers, debug adapters, Node and Python are. Nothing the image prints is
// executed or followed on the host: it is parsed as data, size-capped, and what does not parse is
// dropped.
import type Docker from "dockerode";
import { DEBUG_ADAPTERS } from "@enclave/proto/adapter-registry.js";
import { LANGUAGE_SERVERS } from "@enclave/proto/server-registry.js";
import { demuxedLogs } from "@enclave/control-plane/placement/docker-driver.js";
import { hardenedSpec } from "./hardened-spec.js";
import type { ImageTools } from "@enclave/control-plane/image-set/image-records.js";

export interface DebPackage {
  name: string;
  version: string;
  arch: string;
  source: string;
  sourceVersion: string;
}

export interface NpmPackage {
  name: string;
  version: string;
  /** The node_modules path it was found at, inside the image. */
  location: string;
  license?: string;
  /** sha512-… from the lockfile. */
  integrity?: string;
  resolved?: string;
}

export interface Inventory {
  debs: DebPackage[];
  npm: NpmPackage[];
  tools: ImageTools;
}

/** Folders whose node_modules are the image's own tools (not a workspace's). */
export const NPM_TOOL_FOLDERS = ["/opt", "/usr/local/lib/node_modules", "/usr/lib/node_modules"];
const MAX_OUTPUT_BYTES = 32 * 1024 ** 2;
const INVENTORY_TIMEOUT_MS = 120_000;

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The script run inside the image; every name in it comes from Enclave's own tables. */
export function inventoryScript(): string {
  const lines = [
    "echo '@@dpkg'",
    "command -v dpkg-query >/dev/null && dpkg-query -W -f '${db:Status-Status}\\t${binary:Package}\\t${Version}\\t${Architecture}\\t${source:Package}\\t${source:Version}\\n' 2>/dev/null",
    `for f in $(find ${NPM_TOOL_FOLDERS.join(" ")} -path '*/node_modules/.package-lock.json' -type f 2>/dev/null | sort); do echo "@@npm $f"; cat "$f"; echo; done`,
    "echo '@@tools'",
    'command -v node >/dev/null && echo "node $(node --version 2>/dev/null)"',
    "command -v python3 >/dev/null && echo \"python $(python3 --version 2>&1 | sed 's/^Python //')\"",
  ];
  for (const s of LANGUAGE_SERVERS) {
    const bin = s.command[0] ?? "";
    lines.push(`p=$(command -v ${shellQuote(bin)}) && echo "lsp ${s.id} $p"`);
  }
  for (const a of DEBUG_ADAPTERS) {
    if (a.pythonModule) {
      lines.push(`python3 -c ${shellQuote(`import ${a.pythonModule}`)} 2>/dev/null && echo ${shellQuote(`dap ${a.id} ${(a.commands[0] ?? []).join(" ")}`)}`);
      continue;
    }
    // The first candidate on PATH, as the agent picks it.
    const tries = a.commands.map((argv) => `{ command -v ${shellQuote(argv[0] ?? "")} >/dev/null && echo ${shellQuote(`dap ${a.id} ${argv.join(" ")}`)}; }`);
    lines.push(tries.join(" || "));
  }
  return lines.join("\n");
}

export function parseInventory(text: string): Inventory {
  const inv: Inventory = { debs: [], npm: [], tools: { languageServers: {}, debugAdapters: {} } };
  const sections = text.split(/^(?=@@)/m);
  for (const section of sections) {
    const nl = section.indexOf("\n");
    const head = nl < 0 ? section : section.slice(0, nl);
    const body = nl < 0 ? "" : section.slice(nl + 1);
    if (head === "@@dpkg") {
      for (const line of body.split("\n")) {
        const [status, name, version, arch, source, sourceVersion] = line.split("\t");
        if (status !== "installed" || !name || !version) continue;
        inv.debs.push({ name: name.replace(/:[a-z0-9]+$/, ""), version, arch: arch ?? "", source: source || name, sourceVersion: sourceVersion || version });
      }
    } else if (head.startsWith("@@npm ")) {
      inv.npm.push(...parseLockfile(head.slice("@@npm ".length), body));
    } else if (head === "@@tools") {
      for (const line of body.split("\n")) {
        const [kind, id, ...rest] = line.trim().split(" ");
        const value = rest.join(" ");
        if (kind === "node" && id) inv.tools.node = id.replace(/^v/, "");
        else if (kind === "python" && id) inv.tools.python = id;
        else if (kind === "lsp" && id && value) inv.tools.languageServers[id] = value;
        else if (kind === "dap" && id && value) inv.tools.debugAdapters[id] = value;
      }
    }
  }
  return inv;
}

interface LockEntry {
  version?: unknown;
  license?: unknown;
  integrity?: unknown;
  resolved?: unknown;
  link?: unknown;
}

/** npm's hidden lockfile (node_modules/.package-lock.json): one entry per installed package path. */
export function parseLockfile(file: string, text: string): NpmPackage[] {
  let parsed: { packages?: Record<string, LockEntry> };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    return [];
  }
  const root = file.replace(/\/node_modules\/\.package-lock\.json$/, "");
  const out: NpmPackage[] = [];
  for (const [path, entry] of Object.entries(parsed.packages ?? {})) {
    const m = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(path);
    if (!m?.[1] || typeof entry !== "object" || entry === null || entry.link === true) continue;
    if (typeof entry.version !== "string") continue;
    out.push({
      name: m[1],
      version: entry.version,
      location: `${root}/${path}`,
      ...(typeof entry.license === "string" ? { license: entry.license } : {}),
      ...(typeof entry.integrity === "string" ? { integrity: entry.integrity } : {}),
      ...(typeof entry.resolved === "string" ? { resolved: entry.resolved } : {}),
    });
  }
  return out;
}

/** Runs the inventory script in the image under the enclosure's hardening and parses what it printed. */
export async function readInventory(docker: Docker, image: string): Promise<Inventory> {
  const container = await docker.createContainer(hardenedSpec({ image, command: ["/bin/sh", "-c", inventoryScript()] }));
  try {
    await container.start();
    const timer = setTimeout(() => void container.kill().catch(() => undefined), INVENTORY_TIMEOUT_MS);
    const exit = (await container.wait().finally(() => clearTimeout(timer))) as { StatusCode: number };
    const raw = (await container.logs({ stdout: true, stderr: false })) as Buffer;
    if (raw.length > MAX_OUTPUT_BYTES) throw new Error(`the inventory of ${image} printed more than ${MAX_OUTPUT_BYTES} bytes`);
    const text = await demuxedLogs(docker.modem, raw);
    if (exit.StatusCode !== 0 && !text.includes("@@tools")) throw new Error(`the inventory of ${image} failed (exit ${exit.StatusCode})`);
    return parseInventory(text);
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
}
