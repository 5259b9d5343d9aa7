// Which uid:gid an enclosure of an image runs as. A user named by the image (USER) or by a dev
// container (containerUser) is looked up in the image's own /etc/passwd and /etc/group, read as
// data through the engine (a container created and never started); nothing of the image runs. Root
// is never the answer: an image whose user is root runs as 1000:1000, like Enclave's own image, and
// a dev container that asks for root is refused by its caller.
import type Docker from "dockerode";
import { readVesselEntry, withImageVessel } from "./image-vessel.js";

export const DEFAULT_USER = { uid: 1000, gid: 1000 } as const;

/** /etc/passwd and /etc/group are small; more than this is not read. */
const MAX_FILE_BYTES = 1024 ** 2;

export interface IdEntry {
  name: string;
  id: number;
  /** passwd only: the primary group. */
  gid?: number;
}

export function parseIdFile(text: string, kind: "passwd" | "group"): IdEntry[] {
  const out: IdEntry[] = [];
  for (const line of text.split("\n")) {
    const f = line.split(":");
    if (f.length < 4 || !f[0] || !/^\d+$/.test(f[2] ?? "")) continue;
    const entry: IdEntry = { name: f[0], id: Number(f[2]) };
    if (kind === "passwd" && /^\d+$/.test(f[3] ?? "")) entry.gid = Number(f[3]);
    out.push(entry);
  }
  return out;
}

/** The image's /etc/passwd and /etc/group as text ("" for one it lacks). */
export async function readIdFiles(docker: Docker, image: string): Promise<{ passwd: string; group: string }> {
  return withImageVessel(docker, image, async (vessel) => {
    const read = async (path: string): Promise<string> => {
      try {
        const entry = await readVesselEntry(vessel, path, MAX_FILE_BYTES);
        // A link, a folder or a larger file reads as none: the image decides what the archive holds.
        return entry.kind === "file" ? entry.bytes.toString("utf8") : "";
      } catch {
        return "";
      }
    };
    return { passwd: await read("/etc/passwd"), group: await read("/etc/group") };
  });
}

export type UserAnswer = { uid: number; gid: number } | { unknown: string };

/**
 * A user spec (`name`, `uid`, `name:group`, `uid:gid`) resolved against an image's id files; a name
 * the image does not know is `unknown`, with why.
 */
export function resolveUserSpec(spec: string, files: { passwd: string; group: string }): UserAnswer {
  const [userPart = "", groupPart] = spec.split(":", 2);
  const users = parseIdFile(files.passwd, "passwd");
  const groups = parseIdFile(files.group, "group");
  let uid: number;
  let gid: number | undefined;
  if (/^\d+$/.test(userPart)) {
    uid = Number(userPart);
    gid = users.find((u) => u.id === uid)?.gid;
  } else {
    const u = users.find((x) => x.name === userPart);
    if (!u) return { unknown: `the image has no user \`${userPart}\` in /etc/passwd` };
    uid = u.id;
    gid = u.gid;
  }
  if (groupPart !== undefined && groupPart !== "") {
    if (/^\d+$/.test(groupPart)) gid = Number(groupPart);
    else {
      const g = groups.find((x) => x.name === groupPart);
      if (!g) return { unknown: `the image has no group \`${groupPart}\` in /etc/group` };
      gid = g.id;
    }
  }
  return { uid, gid: gid ?? uid };
}
