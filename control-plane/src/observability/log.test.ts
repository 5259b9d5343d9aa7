// The one logger: JSON lines carry conversation, run and tenant as fields; the pretty view for a
// person shows them too, with text from an enclosure made safe for a terminal.
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { configureLogging, log, resolveLogSettings, scopeOf } from "./log.js";
import { repoRoot } from "../repo-paths.js";
import { thrown } from "@enclave/test-kit/transcript-log.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join("") };
}

afterEach(() => configureLogging({ format: "json", level: "info" }));

describe("logger", () => {
  it("writes one JSON object per line with the record's conversation, run and tenant (local when absent)", () => {
    const out = capture();
    configureLogging({ format: "json", level: "info", destination: out.stream });
    log().info({ ...scopeOf({ conversationId: "c1", runId: "r1" }), event: "tool_call" }, "tool call read: ok");
    log().warn({ ...scopeOf({ conversationId: "c2", tenant: "acme" }) }, "line two");
    const lines = out
      .text()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ conversation: "c1", run: "r1", tenant: "local", event: "tool_call", msg: "tool call read: ok", level: 30 });
    expect(lines[1]).toMatchObject({ conversation: "c2", tenant: "acme", level: 40 });
    expect(lines[1]).not.toHaveProperty("run");
  });

  it("human: a person's view, where an enclosure's escape sequences arrive as visible text", () => {
    const out = capture();
    configureLogging({ format: "human", level: "info", destination: out.stream });
    const hostile = "relay says \u001b]0;owned\u0007\u001b[2J\u202egnp.exe";
    log().warn({ ...scopeOf({ conversationId: "c1" }), detail: hostile }, hostile);
    const text = out.text();
    expect(text).toMatch(/^\d\d:\d\d:\d\d warn {2}relay says /);
    expect(text).toContain("c1");
    expect(text).toContain("local");
    expect(text).toContain("\\x1b]0;owned\\x07\\x1b[2J\\u202egnp.exe");
    expect(text).not.toMatch(/[\u001b\u0007\u202e]/);
    expect(() => JSON.parse(text.trim().split("\n")[0] ?? "")).toThrow();
  });

  it("refuses a format or level it does not know, naming the choices", async () => {
    expect(resolveLogSettings(undefined, undefined, false)).toEqual({ format: "json", level: "info" });
    expect(resolveLogSettings(undefined, undefined, true)).toEqual({ format: "human", level: "info" });
    expect(resolveLogSettings("auto", undefined, true)).toEqual({ format: "human", level: "info" });
    expect(resolveLogSettings("json", undefined, true)).toEqual({ format: "json", level: "info" });
    expect(resolveLogSettings("human", undefined, false)).toEqual({ format: "human", level: "info" });
    expect(resolveLogSettings("pretty", "debug", false)).toEqual({ format: "human", level: "debug" });
    await expectTranscript(
      thrown(() => resolveLogSettings("xml", undefined)),
      "transcripts/log-format/json-pretty.txt",
    );
    await expectTranscript(
      thrown(() => resolveLogSettings(undefined, "loud")),
      "transcripts/log-format/info.txt",
    );
  });

  it("standard error a regular file: each line is in the file when the call that logged it returns (a crash right after keeps it)", () => {
    const dir = mkdtempSync(join(tmpdir(), "enclave-log-file-"));
    try {
      const file = join(dir, "control-plane.log");
      const fd = openSync(file, "a");
      const script = `
        const { log } = await import(${JSON.stringify(join(repoRoot, "control-plane/dist/src/observability/log.js"))});
        for (let i = 0; i < 3; i++) log().info({ event: "tool_call", n: i }, "line " + i);
        process.kill(process.pid, "SIGKILL");`;
      const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
        stdio: ["ignore", "ignore", fd],
        env: { ...process.env, ENCLAVE_LOG_LEVEL: "info", ENCLAVE_LOG_FORMAT: "json" },
        timeout: 30_000,
      });
      closeSync(fd);
      expect(child.signal).toBe("SIGKILL");
      const lines = readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { msg: string });
      expect(lines.map((l) => l.msg)).toEqual(["line 0", "line 1", "line 2"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
