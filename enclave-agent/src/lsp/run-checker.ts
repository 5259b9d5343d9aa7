// Runs the project's own checker (see project-checkers.ts) in its own process group, bounded in time
// and output; a timeout kills the whole group.
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import type { LspCheckerResponse } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { resolveBinary } from "../exec/resolve-binary.js";
import { LIMITS } from "../limits.js";
import { killProcessTree } from "../process/process-tree.js";
import { PROJECT_CHECKERS, type ProjectChecker } from "./project-checkers.js";

/** The workspace root first, then its immediate subfolders (a repository of several projects). */
function candidateDirs(root: string): string[] {
  let subdirs: string[] = [];
  try {
    subdirs = readdirSync(root, { withFileTypes: true })
      .filter((d) => d.isDirectory() && !d.name.startsWith(".") && d.name !== "node_modules")
      .map((d) => join(root, d.name))
      .sort();
  } catch {
    // An unreadable root has only itself.
  }
  return [root, ...subdirs];
}

export async function runChecker(root: string, timeoutMs: number): Promise<LspCheckerResponse> {
  const why: string[] = [];
  for (const dir of candidateDirs(root)) {
    const found = pickChecker(dir, why);
    if (found) return run(found.checker, found.binary, dir, root, timeoutMs);
  }
  return {
    command: "",
    cwd: ".",
    exitCode: 0,
    timedOut: false,
    output: "",
    outputTruncated: false,
    detail: why.length
      ? why.join("; ")
      : `no checker fits this project: none of ${[...new Set(PROJECT_CHECKERS.flatMap((c) => c.markers))].join(", ")} is at the workspace root or in a folder just below it; ask for one file's diagnostics instead`,
  };
}

function pickChecker(dir: string, why: string[]): { checker: ProjectChecker; binary: string } | undefined {
  for (const c of PROJECT_CHECKERS) {
    const marker = c.markers.find((m) => existsSync(join(dir, m)));
    if (!marker) continue;
    const binary = resolveBinary(c.command[0] ?? "", dir);
    if (binary) return { checker: c, binary };
    why.push(`${marker} asks for ${c.id}, but \`${c.command[0]}\` is not installed (${c.install})`);
  }
  return undefined;
}

function run(c: ProjectChecker, binary: string, cwd: string, root: string, timeoutMs: number): Promise<LspCheckerResponse> {
  const limit = Math.min(timeoutMs > 0 ? timeoutMs : LIMITS.checkerDefaultTimeoutMs, LIMITS.execMaxTimeoutMs);
  return new Promise<LspCheckerResponse>((resolve) => {
    const proc = spawn(binary, c.command.slice(1), {
      cwd,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
    });
    const chunks: Buffer[] = [];
    let bytes = 0;
    let truncated = false;
    let timedOut = false;
    const take = (b: Buffer): void => {
      if (bytes >= LIMITS.checkerOutputBytes) {
        truncated = true;
        return;
      }
      chunks.push(b.subarray(0, LIMITS.checkerOutputBytes - bytes));
      bytes += b.length;
    };
    proc.stdout.on("data", take);
    proc.stderr.on("data", take);
    const timer = setTimeout(() => {
      timedOut = true;
      if (proc.pid !== undefined) killProcessTree(proc.pid);
    }, limit);
    const done = (code: number): void => {
      clearTimeout(timer);
      resolve({
        command: c.command.join(" "),
        cwd: relative(root, cwd) || ".",
        exitCode: code,
        timedOut,
        output: Buffer.concat(chunks).toString("utf8"),
        outputTruncated: truncated,
        detail: "",
      });
    };
    proc.on("error", (err) => {
      chunks.push(Buffer.from(err.message));
      done(-1);
    });
    proc.on("close", (code, signal) => done(code ?? (signal ? 128 : -1)));
  });
}
