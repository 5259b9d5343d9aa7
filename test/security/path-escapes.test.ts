// Promise: no file-taking tool reaches outside the workspace — not by `..`, not by an absolute path,
// not through a symlink to /etc, not through a hard link to a file outside — on host placement and
// inside an enclosure alike. Each attempt is refused with `outside_workspace` and touches nothing.
import { linkSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(async () => fx?.close());

/** Every file-taking tool with one path put where the tool takes it. */
const attempts = (path: string): { tool: string; args: Record<string, unknown> }[] => [
  { tool: "read", args: { path } },
  { tool: "list", args: { path } },
  { tool: "write", args: { path, content: "pwned\n" } },
  { tool: "edit", args: { path, old_text: "root", new_text: "pwned" } },
  { tool: "apply_patch", args: { patch: `--- a/${path}\n+++ b/${path}\n@@ -1 +1 @@\n-root\n+pwned\n` } },
  { tool: "apply_patch", args: { patch: `--- /dev/null\n+++ b/${path}.new\n@@ -0,0 +1 @@\n+pwned\n` } },
  { tool: "exec", args: { command: "pwd", cwd: path } },
  { tool: "ast_grep", args: { pattern: "root", path, language: "python" } },
  { tool: "ast_edit", args: { pattern: "root", rewrite: "pwned", path, language: "python" } },
  { tool: "lsp", args: { action: "diagnostics", file: path } },
  { tool: "lsp", args: { action: "hover", file: path, line: 1, symbol: "root" } },
  { tool: "lsp_rename", args: { file: path, line: 1, symbol: "root", new_name: "pwned" } },
  { tool: "debug", args: { op: "breakpoints", file: path, lines: [1] } },
  { tool: "debug", args: { op: "launch", program: path } },
];

async function expectAllRefused(run: string, paths: string[]): Promise<void> {
  for (const path of paths) {
    for (const { tool, args } of attempts(path)) {
      const r = await fx.client.callTool(run, tool, args);
      expect(r.isError, `${tool} ${JSON.stringify(args)} was allowed: ${resultText(r)}`).toBe(true);
      expect(r.errorCode, `${tool} ${JSON.stringify(args)}: ${resultText(r)}`).toBe("outside_workspace");
    }
  }
}

for (const placement of ["host", "enclosure"] as const) {
  describe(`path escapes (${placement})`, () => {
    const id = `esc-${placement}`;
    let run: string;
    let outside: string;

    beforeAll(async () => {
      const ws = (await fx.client.createConversation(id)).workspacePath;
      // A file outside the workspace on the same filesystem, hard-linked in (visible inside the
      // enclosure only through the link).
      outside = join(fx.dataDir, `secret-${placement}.txt`);
      writeFileSync(outside, "root secret\n");
      linkSync(outside, join(ws, "hard-link.txt"));
      symlinkSync("/etc", join(ws, "etc-link"));
      symlinkSync("../../..", join(ws, "up-link"));
      if (placement === "enclosure") await fx.client.startEnclosure(id);
      run = (await fx.client.openRun(id, { approvalPolicy: "never", resources: ["workspace", "shell", "ast", "lsp", "debug"] })).id;
    });

    it("refuses `..`, absolute paths and symlinked folders through every tool", async () => {
      await expectAllRefused(run, ["../escape.txt", "a/../../escape.txt", "/etc/passwd", "/tmp/escape.txt", "etc-link/passwd", "up-link/etc/passwd"]);
      const passwd = await fx.client.callTool(run, "exec", { command: "grep -c pwned /etc/passwd || true" });
      expect(resultText(passwd)).toMatch(/^0$/m);
    });

    it("refuses to read or edit through a hard link to a file outside, and leaves that file as it was", async () => {
      for (const { tool, args } of [
        { tool: "read", args: { path: "hard-link.txt" } },
        { tool: "edit", args: { path: "hard-link.txt", old_text: "secret", new_text: "pwned" } },
        { tool: "apply_patch", args: { patch: "--- a/hard-link.txt\n+++ b/hard-link.txt\n@@ -1 +1 @@\n-root secret\n+pwned\n" } },
      ]) {
        const r = await fx.client.callTool(run, tool, args);
        expect(r.errorCode, `${tool}: ${resultText(r)}`).toBe("outside_workspace");
      }
      // A whole-file write replaces the link's name with a new file; the outside file keeps its text.
      await fx.client.callTool(run, "write", { path: "hard-link.txt", content: "new\n" });
      expect(readFileSync(outside, "utf8")).toBe("root secret\n");
    });
  });
}
