// Under gVisor (runsc) the enclosure's processes, sockets and mounts live in gVisor's user-space
// kernel: the host's /proc shows only the sandbox that runs it. The audit asks that kernel directly:
// a fresh process the control plane starts through the engine (docker exec) under a user id no
// enclosure process has, so none can signal, trace or feed it, reads gVisor's own tables — every
// process's status and its network namespace's socket tables, interfaces and routes, the mount table.
// The reader is Enclave's own: a statically linked program (enclave-agent/native/proc-reader.c) in the
// read-only agent bundle, so no shell, tool, loader or library of the image takes part, and an image
// that ships a lying `head` or `sh` (or an /etc/ld.so.preload) cannot change what this half sees.
import type Docker from "dockerode";
import { orTimeout } from "@enclave/proto/wait.js";
import { EnclaveError } from "../errors.js";
import { IN_ENCLOSURE } from "../model/enclosure.js";
import { interfacesIn, listeningIn, parseMountinfo, routesIn, SOCKET_TABLES, statusField, statusIds } from "../procfs/proc-tables.js";
import type { GvisorProcess, GvisorView } from "../model/enclosure-views.js";

const READ_TIMEOUT_MS = 15_000;
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;
// Every process's own network tables, not only the reader's: gVisor does not apply the engine's
// seccomp profile, so a process inside may make a user and network namespace of its own there.
const NET_TABLES = ["dev", "route", "ipv6_route", ...SOCKET_TABLES];
// The reader names its own pid, so it is left out of the process list, and the process limit it was
// started under (gVisor has no /proc/PID/limits).
const READER_COMMAND = [`${IN_ENCLOSURE.agentDir}/proc-reader`, ...NET_TABLES];

/** A user id for the reader that differs from the enclosure's own. */
export function readerUid(enclosureUid: number): number {
  return enclosureUid === 65534 ? 65533 : 65534;
}

async function execRead(container: Docker.Container, docker: Docker, user: string): Promise<string> {
  const exec = await container.exec({ Cmd: READER_COMMAND, User: user, AttachStdout: true, AttachStderr: true, Env: [] });
  const stream = await exec.start({ hijack: true, stdin: false });
  const chunks: Buffer[] = [];
  let size = 0;
  const read = new Promise<void>((resolve, reject) => {
    const out = {
      write(chunk: Buffer): boolean {
        size += chunk.length;
        if (size <= MAX_OUTPUT_BYTES) chunks.push(chunk);
        return true;
      },
    } as unknown as NodeJS.WritableStream;
    const ignore = { write: () => true } as unknown as NodeJS.WritableStream;
    docker.modem.demuxStream(stream, out, ignore);
    stream.on("end", () => resolve());
    stream.on("error", (err: Error) => reject(err));
  });
  await orTimeout(read, READ_TIMEOUT_MS, () => {
    stream.destroy();
    return new Error(`no answer within ${READ_TIMEOUT_MS / 1000} s`);
  });
  if (size > MAX_OUTPUT_BYTES) throw new Error(`more than ${MAX_OUTPUT_BYTES} bytes of tables`);
  return Buffer.concat(chunks).toString("utf8");
}

/** Splits the reader's output (the format of `head` given several files: "==> PATH <==" before each) into path → text. */
export function splitHeadOutput(text: string): Map<string, string> {
  const files = new Map<string, string>();
  const re = /^==> (.+) <==$/gm;
  const marks = [...text.matchAll(re)];
  marks.forEach((m, i) => {
    const start = (m.index ?? 0) + m[0].length + 1;
    const end = marks[i + 1]?.index ?? text.length;
    files.set(m[1] ?? "", text.slice(start, end).replace(/\n\n$/, "\n"));
  });
  return files;
}

export function parseGvisorTables(text: string, uid: number): GvisorView {
  const reader = /^reader (\d+) nproc (\S*)$/m.exec(text);
  const readerPid = Number(reader?.[1] ?? -1);
  const nproc = reader?.[2] ?? "";
  const files = splitHeadOutput(text);
  const processes: GvisorProcess[] = [];
  /** Per process and table: /proc/PID/net/TABLE. */
  const net = new Map<string, Map<number, string>>();
  for (const [path, content] of files) {
    const status = /^\/proc\/(\d+)\/status$/.exec(path);
    if (status && Number(status[1]) !== readerPid && content) {
      processes.push({
        pid: Number(status[1]),
        name: statusField(content, "Name"),
        uids: statusIds(content, "Uid"),
        gids: statusIds(content, "Gid"),
        capEff: statusField(content, "CapEff"),
        capPrm: statusField(content, "CapPrm"),
        capBnd: statusField(content, "CapBnd"),
        seccomp: Number(statusField(content, "Seccomp") || 0),
      });
    }
    const table = /^\/proc\/(\d+)\/net\/(\w+)$/.exec(path);
    if (table) {
      const byPid = net.get(table[2] ?? "") ?? new Map<number, string>();
      byPid.set(Number(table[1]), content);
      net.set(table[2] ?? "", byPid);
    }
  }
  if (!files.has("/proc/self/mountinfo") || !net.get("dev")?.size) throw new Error("the reader printed no tables");
  /** The union over every process's namespace, each entry once. */
  const union = (each: (pid: number) => string[]): string[] => [...new Set([...(net.get("dev")?.keys() ?? [])].flatMap(each))];
  const of = (table: string, pid: number): string => net.get(table)?.get(pid) ?? "";
  return {
    readerUid: uid,
    nprocHard: nproc === "unlimited" ? -1 : /^\d+$/.test(nproc) ? Number(nproc) : -2,
    processes,
    interfaces: union((pid) => interfacesIn(of("dev", pid))),
    routes: union((pid) => routesIn(of("route", pid), of("ipv6_route", pid))),
    listening: union((pid) => SOCKET_TABLES.flatMap((t) => listeningIn(t, of(t, pid)))),
    mounts: parseMountinfo(files.get("/proc/self/mountinfo") ?? ""),
  };
}

/** Reads under way, by container: one at a time, so no reader shows in another's process list. */
const reading = new Map<string, Promise<unknown>>();

/** gVisor's kernel's view of the enclosure. */
export async function readGvisorView(docker: Docker, containerId: string, enclosureUid: number): Promise<GvisorView> {
  const uid = readerUid(enclosureUid);
  const before = reading.get(containerId) ?? Promise.resolve();
  const read = before.catch(() => undefined).then(() => execRead(docker.getContainer(containerId), docker, `${uid}:${uid}`));
  reading.set(containerId, read);
  try {
    return parseGvisorTables(await read, uid);
  } catch (err) {
    throw new EnclaveError("placement_unavailable", `cannot read gVisor's tables in the enclosure: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    if (reading.get(containerId) === read) reading.delete(containerId);
  }
}
