// The reference: @ast-grep/cli (a devDependency), driven the way a user would. All of a corpus's
// patterns go to one `ast-grep scan` as inline rules, so each file is parsed once; a pattern ast-grep
// refuses is then run on its own (`ast-grep run`) to keep its error. `dumpPattern` asks ast-grep how
// it read a pattern (`--debug-query=pattern`).
import { execFile, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { join } from "node:path";
import { promisify } from "node:util";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";

const run = promisify(execFile);
export const AST_GREP = join(repoRoot, "node_modules", "@ast-grep", "cli", "ast-grep");
const TIMEOUT_MS = 10 * 60_000;
/** Files per ast-grep invocation (keeps the argument list well under the system's limit). */
const CHUNK = 500;

export interface PeerMatch {
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based, in code points. */
  column: number;
  text: string;
}

interface SgJson {
  file: string;
  text: string;
  ruleId?: string;
  range: { start: { line: number; column: number } };
}

function toMatch(j: SgJson): PeerMatch {
  return { file: j.file, line: j.range.start.line + 1, column: j.range.start.column + 1, text: j.text };
}

function rule(id: string, sgLang: string, pattern: string): string {
  // YAML accepts JSON strings, which quote any pattern safely.
  return `id: ${id}\nlanguage: ${sgLang}\nrule:\n  pattern: ${JSON.stringify(pattern)}`;
}

async function sg(args: string[], cwd: string): Promise<{ stdout: string; stderr: string; failed: boolean }> {
  try {
    const r = await run(AST_GREP, args, { cwd, maxBuffer: 1 << 30, timeout: TIMEOUT_MS });
    return { stdout: r.stdout, stderr: r.stderr, failed: false };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; code?: number | string };
    // ast-grep exits 1 when it found nothing (perhaps with a hint on stderr); that is not a failure.
    if (e.code === 1 && !/^\s*error/im.test(e.stderr ?? "")) return { stdout: e.stdout ?? "", stderr: e.stderr ?? "", failed: false };
    return { stdout: e.stdout ?? "", stderr: `${e.stderr ?? ""}${e.stderr ? "" : String(err)}`, failed: true };
  }
}

/** Runs ast-grep and hands each JSON line of its output to `each` as it comes (a corpus's output is
 * too large to hold as one string). */
function sgStream(args: string[], cwd: string, each: (j: SgJson) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(AST_GREP, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS);
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      if (stderr.length < 4000) stderr += d.toString();
    });
    const lines = createInterface({ input: child.stdout });
    lines.on("line", (l) => {
      if (l.trim()) each(JSON.parse(l) as SgJson);
    });
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      // ast-grep exits 1 when it found nothing (perhaps with a hint on stderr).
      if (code === 0 || (code === 1 && !/^\s*error/im.test(stderr))) resolve();
      else reject(new Error(`ast-grep ${args[0]} failed (${code}): ${stderr.slice(0, 500)}`));
    });
  });
}

/** Every pattern's matches over the files (paths relative to root), by pattern index; an ast-grep
 * error for a pattern is returned in place of its matches. */
export async function peerMatches(root: string, files: string[], sgLang: string, patterns: string[]): Promise<(PeerMatch[] | { error: string })[]> {
  const out: (PeerMatch[] | { error: string })[] = patterns.map(() => []);
  const scanned: number[] = [];
  // A rule ast-grep cannot compile fails a whole scan, and `scan` refuses some patterns `run` takes
  // (a bare metavariable): check each alone, and run those apart.
  const alone: number[] = [];
  for (const [i, p] of patterns.entries()) {
    const asRule = await sg(["scan", "--inline-rules", rule("p", sgLang, p), "--json=stream", "/dev/null"], root);
    if (!asRule.failed) {
      scanned.push(i);
      continue;
    }
    const r = await sg(["run", "--pattern", p, "--lang", sgLang, "--json=stream", "/dev/null"], root);
    if (r.failed) out[i] = { error: r.stderr.trim().split("\n")[0] ?? "ast-grep failed" };
    else alone.push(i);
  }
  const rules = scanned.map((i) => rule(`p${i}`, sgLang, patterns[i] as string)).join("\n---\n");
  for (let k = 0; k < files.length; k += CHUNK) {
    const chunk = files.slice(k, k + CHUNK);
    if (rules) {
      await sgStream(["scan", "--inline-rules", rules, "--json=stream", ...chunk], root, (j) => {
        const list = out[Number(j.ruleId?.slice(1))];
        if (Array.isArray(list)) list.push(toMatch(j));
      });
    }
    for (const i of alone) {
      const list = out[i];
      await sgStream(["run", "--pattern", patterns[i] as string, "--lang", sgLang, "--json=stream", ...chunk], root, (j) => {
        if (Array.isArray(list)) list.push(toMatch(j));
      });
    }
  }
  return out;
}

/** ast-grep's own reading of a pattern: its pattern tree, one node a line, indented by depth. */
export async function dumpPattern(sgLang: string, pattern: string): Promise<string> {
  const r = await sg(["run", "--pattern", pattern, "--lang", sgLang, "--debug-query=pattern", "/dev/null"], "/");
  const text = `${r.stdout}\n${r.stderr}`;
  const at = text.indexOf("Debug Pattern:");
  if (at < 0) return `(no pattern: ${r.stderr.trim().split("\n")[0] ?? ""})`;
  const lines = text.slice(at + "Debug Pattern:".length).split("\n");
  const out: string[] = [];
  for (const l of lines.slice(1)) {
    if (!l.trim()) break;
    out.push(l.trimEnd());
  }
  return out.join("\n");
}
