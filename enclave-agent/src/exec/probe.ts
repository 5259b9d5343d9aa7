// Asking an installed program a quick question (does it run, can it import debugpy, does it have
// pandas) costs a process start, so answers are kept: by the program's file identity (the link's own
// too, since a venv's python is a link and a recreated venv is a new link), successes until the file
// changes, failures only briefly so an install is seen soon after. Callers never probe a program
// from the workspace for a description: its files are whoever-wrote-them's programs.
import { execFile, spawnSync } from "node:child_process";
import { lstatSync, statSync } from "node:fs";
import { LIMITS } from "../limits.js";

export interface ProbeResult {
  ok: boolean;
  /** stdout on success; the first useful words of stderr (or the failure) otherwise, trimmed. */
  output: string;
}

const answers = new Map<string, { identity: string; result: ProbeResult; until: number }>();

function identityOf(path: string): string | undefined {
  try {
    const st = statSync(path);
    const link = lstatSync(path);
    return `${st.mtimeMs}:${st.ino}:${st.size}:${link.mtimeMs}:${link.ino}`;
  } catch {
    return undefined;
  }
}

function cached(key: string, identity: string): ProbeResult | undefined {
  const hit = answers.get(key);
  return hit && hit.identity === identity && Date.now() < hit.until ? hit.result : undefined;
}

function keep(key: string, identity: string, result: ProbeResult): ProbeResult {
  answers.set(key, { identity, result, until: result.ok ? Infinity : Date.now() + LIMITS.probeNegativeCacheMs });
  return result;
}

function outcome(failed: boolean, stdout: string, stderr: string, why: string): ProbeResult {
  return { ok: !failed, output: (failed ? stderr.trim() || stdout.trim() || why : stdout).trim() };
}

const missing = (path: string): ProbeResult => ({ ok: false, output: `${path} does not exist` });

/** Runs `path args` (bounded by `timeoutMs`) or answers from what an earlier run of the same file said. */
export function probe(path: string, args: readonly string[], timeoutMs: number = LIMITS.probeTimeoutMs): Promise<ProbeResult> {
  const identity = identityOf(path);
  if (identity === undefined) return Promise.resolve(missing(path));
  const key = `${path}\0${args.join("\0")}`;
  const hit = cached(key, identity);
  if (hit) return Promise.resolve(hit);
  return new Promise((resolve) => {
    execFile(path, [...args], { timeout: timeoutMs }, (err, stdout, stderr) => {
      resolve(keep(key, identity, outcome(err !== null, String(stdout), String(stderr), err?.message ?? "")));
    });
  });
}

/** The same, for callers that must answer at once (a status listing): the process runs synchronously. */
export function probeSync(path: string, args: readonly string[], timeoutMs: number = LIMITS.probeTimeoutMs): ProbeResult {
  const identity = identityOf(path);
  if (identity === undefined) return missing(path);
  const key = `${path}\0${args.join("\0")}`;
  const hit = cached(key, identity);
  if (hit) return hit;
  const r = spawnSync(path, [...args], { timeout: timeoutMs, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const failed = r.status !== 0;
  return keep(key, identity, outcome(failed, r.stdout ?? "", r.stderr ?? "", r.error?.message ?? `exit status ${r.status}`));
}
