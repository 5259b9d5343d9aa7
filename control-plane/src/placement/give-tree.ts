// Handing a workspace tree to the account that will write it (the sandbox's user on the host, the
// enclosure's user in bind mode). The tree is writable by code we do not trust while we walk it, so
// the walk is coreutils' chown: fts with directory handles and no following of links (-P -h), which
// a folder swapped for a link mid-walk cannot redirect. A JavaScript walk by path could be.
import { execFile } from "node:child_process";
import { existsSync, lchownSync, readdirSync } from "node:fs";
import { EnclaveError } from "../errors.js";

/** Attempts before giving up when entries keep vanishing under the walk. */
const ATTEMPTS = 3;

interface ChownRun {
  ok: boolean;
  /** Every complaint was about an entry that disappeared between listing and changing it. */
  onlyVanished: boolean;
  stderr: string;
}

function chownOnce(dir: string, uid: number, gid: number): Promise<ChownRun> {
  return new Promise((resolve) => {
    // LC_ALL=C keeps chown's complaints in one language, the only way to tell a vanished entry
    // (harmless: it needs no owner) from a real failure, since chown exits 1 for both.
    execFile(
      "/bin/chown",
      ["-R", "-P", "-h", `${uid}:${gid}`, "--", dir],
      { env: { LC_ALL: "C", PATH: "/usr/bin:/bin" }, maxBuffer: 1 << 20 },
      (err, _out, stderr) => {
        const lines = String(stderr).split("\n").filter(Boolean);
        resolve({ ok: !err, onlyVanished: lines.length > 0 && lines.every((l) => l.endsWith(": No such file or directory")), stderr: String(stderr) });
      },
    );
  });
}

/** Gives the whole tree at `dir` to uid:gid: links themselves, never their targets. Entries removed
 * while the walk runs are skipped (they need no owner); the root itself must exist. */
export async function giveTree(dir: string, uid: number, gid: number): Promise<void> {
  // A new conversation's workspace is often still empty: its root alone needs an owner, which
  // lchown gives without starting a chown process (a fork of this whole process: ~11 ms here, on a
  // warm-pool claim's or a host agent's start). Anything else goes to chown, which reports failures.
  try {
    if (readdirSync(dir).length === 0) {
      lchownSync(dir, uid, gid);
      return;
    }
  } catch {
    // Unreadable or gone: chown says what is wrong.
  }
  let last: ChownRun | undefined;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    last = await chownOnce(dir, uid, gid);
    if (last.ok) return;
    if (!last.onlyVanished) break;
  }
  if (last?.onlyVanished) {
    // Still racing after every attempt: whatever exists was given; what vanished needs nothing.
    if (existsSync(dir)) return;
    throw new EnclaveError("not_found", `the folder ${dir} does not exist; create the conversation again`);
  }
  throw new EnclaveError(
    "failed",
    `could not give ${dir} to ${uid}:${gid}: ${last?.stderr.trim() ?? "no answer"}; check that the folder exists and the control plane may change its owner`,
  );
}
