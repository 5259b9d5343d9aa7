// Which of the workspace's host names a program's bytes record. A binary built on the host (outside
// host placement's sandbox) carries the workspace's host path in its debug information (the compile
// folder, DW_AT_comp_dir), while the sandbox sees the same folder as /workspace: lldb matches
// breakpoints only through a source map between the two. The host path is told to the agent only when
// the program already carries it, so the sandbox learns nothing its own files do not say.
// The program is the workspace's (hostile input): it is read, never followed through a link, and only
// searched for the control plane's own strings.
import { constants, promises as fsp, realpathSync } from "node:fs";
import { isAbsolute, normalize } from "node:path";
import { atFd, openDirBelow } from "../../fs/fd-path.js";

/** How much of a program is searched: debug information past this is left unmapped. */
const SCAN_LIMIT_BYTES = 1024 * 1024 * 1024;
const CHUNK_BYTES = 4 * 1024 * 1024;

/** The workspace's host path and, when it differs, its real path (a compiler records the folder it ran in). */
function hostNames(hostWorkspace: string): string[] {
  const names = [hostWorkspace.replace(/\/+$/, "")];
  try {
    const real = realpathSync(hostWorkspace);
    if (!names.includes(real)) names.push(real);
  } catch {
    // Gone: nothing to map.
  }
  return names.filter((n) => n !== "" && n !== "/");
}

/** Whether `name` occurs in `buf` at or after `from` as a whole folder name: followed by `/` or a NUL. */
function occurs(buf: Buffer, name: Buffer, from: number): boolean {
  for (let i = buf.indexOf(name, from); i !== -1; i = buf.indexOf(name, i + 1)) {
    const next = buf[i + name.length];
    if (next === 0x2f || next === 0) return true;
  }
  return false;
}

/**
 * The host names of the workspace that the workspace-relative `program` records (none when it is not
 * a regular file inside the workspace reached without links, or records none).
 */
export async function recordedWorkspacePrefixes(hostWorkspace: string, program: string): Promise<string[]> {
  const rel = normalize(program);
  if (isAbsolute(rel) || rel === "." || rel.startsWith("../") || rel === "..") return [];
  const parts = rel.split("/").filter((p) => p !== "" && p !== ".");
  const file = parts.pop();
  if (!file) return [];
  const wanted = hostNames(hostWorkspace).map((n) => ({ n, bytes: Buffer.from(n) }));
  if (wanted.length === 0) return [];
  let root;
  try {
    root = await fsp.open(hostWorkspace, constants.O_RDONLY | constants.O_DIRECTORY);
  } catch {
    return [];
  }
  try {
    const dir = await openDirBelow(root.fd, parts);
    try {
      const handle = await fsp.open(atFd(dir.fd, file), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      try {
        const st = await handle.stat();
        if (!st.isFile()) return [];
        const found = new Set<string>();
        const keep = Math.max(...wanted.map((w) => w.bytes.length));
        let carry = Buffer.alloc(0);
        let offset = 0;
        const chunk = Buffer.alloc(CHUNK_BYTES);
        while (offset < SCAN_LIMIT_BYTES && found.size < wanted.length) {
          const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, offset);
          if (bytesRead === 0) break;
          offset += bytesRead;
          const buf = Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
          for (const w of wanted) if (!found.has(w.n) && occurs(buf, w.bytes, 0)) found.add(w.n);
          carry = Buffer.from(buf.subarray(Math.max(0, buf.length - keep)));
        }
        return wanted.map((w) => w.n).filter((n) => found.has(n));
      } finally {
        await handle.close();
      }
    } finally {
      await dir.close();
    }
  } catch {
    // A link, a missing file, a folder: the agent says what is wrong with the program.
    return [];
  } finally {
    await root.close();
  }
}
