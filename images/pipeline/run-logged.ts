// Runs a build command, feeding each output line to the progress reporter, and fails with the
// command's own words when it exits non-zero.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { Progress } from "./progress.js";

export function runLogged(cmd: string, args: string[], progress: Progress, opts: { cwd?: string } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, stdio: ["ignore", "pipe", "pipe"] });
    const tail: string[] = [];
    const onLine = (line: string): void => {
      progress.detail(line);
      tail.push(line);
      if (tail.length > 20) tail.shift();
    };
    createInterface({ input: child.stdout }).on("line", onLine);
    createInterface({ input: child.stderr }).on("line", onLine);
    child.on("error", (err) => reject(new Error(`${cmd} could not start: ${err.message}`)));
    child.on("close", (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${cmd} ${args.join(" ")} failed (${signal ?? `exit ${code}`}):\n${tail.join("\n")}`));
    });
  });
}
