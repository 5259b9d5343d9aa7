// Log lines to a pipe go out in batches: one write for the lines of a burst, at most a short while
// after the first, and none lost when the process exits right after logging.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../limits.js";
import { repoRoot } from "../repo-paths.js";
import { LineBatch } from "./line-batch.js";

function sink(): { writes: string[]; write(s: string): void } {
  const writes: string[] = [];
  return { writes, write: (s) => void writes.push(s) };
}

describe("a batch of log lines", () => {
  it("hands the lines of a burst to its sink in one write, within the delay", async () => {
    const s = sink();
    const b = new LineBatch(s, 5);
    for (let i = 0; i < 3; i++) b.write(`line ${i}\n`);
    expect(s.writes).toEqual([]);
    await new Promise((r) => setTimeout(r, 30));
    expect(s.writes).toEqual(["line 0\nline 1\nline 2\n"]);
    b.close();
  });

  it("writes at once past its size, on flush, and on close", () => {
    const s = sink();
    const b = new LineBatch(s, 60_000);
    const big = `${"x".repeat(LIMITS.logBatchMaxBytes)}\n`;
    b.write(big);
    expect(s.writes).toEqual([big]);
    b.write("flushed\n");
    b.flush();
    expect(s.writes).toEqual([big, "flushed\n"]);
    b.write("closed\n");
    b.close();
    expect(s.writes).toEqual([big, "flushed\n", "closed\n"]);
  });

  it("standard error a pipe: the lines logged just before the process exits reach the pipe", () => {
    const script = `
      const { log } = await import(${JSON.stringify(join(repoRoot, "control-plane/dist/src/observability/log.js"))});
      for (let i = 0; i < 3; i++) log().info({ event: "tool_call", n: i }, "line " + i);
      process.exit(0);`;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, ENCLAVE_LOG_LEVEL: "info", ENCLAVE_LOG_FORMAT: "json" },
      timeout: 30_000,
      encoding: "utf8",
    });
    expect(child.status).toBe(0);
    const lines = child.stderr
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { msg: string });
    expect(lines.map((l) => l.msg)).toEqual(["line 0", "line 1", "line 2"]);
  });
});
