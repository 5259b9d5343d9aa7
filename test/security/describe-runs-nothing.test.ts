// Describing a placement runs nothing from the workspace. A project's own language servers, debug
// adapters and interpreter (node_modules/.bin, .venv/bin) are planted as shell scripts that leave a
// mark when run; DescribePlacement, `lsp status` and `debug adapters` must name them without running
// any, on host placement and in an enclosure.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const MARK = "RAN-FROM-WORKSPACE";
// Each script appends its name to the mark file at the workspace root (two folders above it).
const SCRIPT = `#!/bin/sh\necho "$0 $*" >> "$(dirname "$0")/../../${MARK}"\n`;
const PLANTED = [
  ".venv/bin/python",
  ".venv/bin/pylsp",
  "node_modules/.bin/typescript-language-server",
  "node_modules/.bin/pyright-langserver",
  "node_modules/.bin/bash-language-server",
  "node_modules/.bin/rust-analyzer",
  "node_modules/.bin/dart",
  "node_modules/.bin/clangd",
  "node_modules/.bin/gopls",
  "node_modules/.bin/dlv",
  "node_modules/.bin/lldb-vscode-15",
];
// Root markers at the top, so every server and adapter looks in the top folder's project bins.
const MARKERS: Record<string, string> = {
  "pyproject.toml": '[project]\nname = "p"\n',
  "package.json": "{}\n",
  "Cargo.toml": '[package]\nname = "p"\nversion = "0.1.0"\n',
  "pubspec.yaml": "name: p\n",
  "go.mod": "module example.com/p\n\ngo 1.19\n",
  Makefile: "all:\n",
};

function plant(ws: string): void {
  for (const rel of PLANTED) {
    mkdirSync(dirname(join(ws, rel)), { recursive: true });
    writeFileSync(join(ws, rel), SCRIPT);
    chmodSync(join(ws, rel), 0o755);
  }
  for (const [name, content] of Object.entries(MARKERS)) writeFileSync(join(ws, name), content);
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function ranFromWorkspace(ws: string): string {
  return existsSync(join(ws, MARK)) ? readFileSync(join(ws, MARK), "utf8") : "";
}

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(async () => fx?.close());

/** A fresh conversation (so no probe answer is cached from another surface) with the scripts planted. */
async function planted(placement: "host" | "enclosure", surface: string): Promise<{ id: string; ws: string; root: string; runId: string }> {
  const id = `describe-${placement}-${surface}`;
  const ws = (await fx.client.createConversation(id)).workspacePath;
  plant(ws);
  if (placement === "enclosure") await fx.client.startEnclosure(id);
  const runId = (await fx.client.openRun(id, { approvalPolicy: "never", resources: ["workspace", "lsp", "debug"] })).id;
  // Both placements see the workspace at /workspace (host placement's sandbox mounts it there).
  return { id, ws, root: "/workspace", runId };
}

/** The entries of a listing (a line and the indented lines under it) that start with one of `names`. */
function entries(listing: string, names: readonly string[]): string {
  return listing
    .split(/\n(?=\S)/)
    .filter((e) => names.some((n) => e.startsWith(n)))
    .join("\n");
}

describe.each(["host", "enclosure"] as const)("describing %s placement runs nothing from the workspace", (placement) => {
  it("DescribePlacement names the project's own servers, adapters and interpreter without running them", async () => {
    const { id, ws, root } = await planted(placement, "placement");
    const d = await fx.client.describePlacement(id);
    // Nothing planted ran (the mark file would name whatever did).
    expect(ranFromWorkspace(ws)).toBe("");
    expect(d.placement).toBe(placement);
    const by = (kind: string, cid: string) => d.components.find((c) => c.kind === kind && c.id === cid);
    // rust-analyzer and dart are the servers with a --version probe: a project's own is not probed.
    for (const [server, bin] of [
      ["rust-analyzer", "rust-analyzer"],
      ["dart", "dart"],
      ["pyright", "pyright-langserver"],
      ["typescript", "typescript-language-server"],
    ]) {
      expect(by("language_server", server ?? "")).toMatchObject({
        usable: true,
        detail: `${root}/node_modules/.bin/${bin} (project-local, not run to check it)`,
      });
    }
    expect(by("kernel", "python")?.detail).toBe(`${root}/.venv/bin/python (project-local, not run to check it)`);
    expect(by("debug_adapter", "debugpy")?.usable).toBe(true);
    expect(by("debug_adapter", "debugpy")?.detail).toMatch(
      new RegExp(`\\(interpreter ${escape(root)}/\\.venv/bin/python\\) \\(project-local, not run to check it\\)$`),
    );
    expect(by("debug_adapter", "delve")?.detail).toMatch(
      new RegExp(`^${escape(root)}/node_modules/\\.bin/dlv dap .*\\(project-local, not run to check it\\)$`),
    );
  });

  it("lsp status names the project's own servers without running them", async () => {
    const { ws, runId } = await planted(placement, "lsp");
    const status = resultText(await fx.client.callTool(runId, "lsp", { action: "status" }));
    expect(ranFromWorkspace(ws)).toBe("");
    // Every server resolves to the project's own planted binary, so the answer is the same on any machine.
    await expectTranscript(status, `transcripts/describe-runs-nothing/lsp-status-${placement}.txt`);
  });

  it("debug adapters names the project's interpreter and adapters without running them", async () => {
    const { ws, runId } = await planted(placement, "debug");
    const adapters = resultText(await fx.client.callTool(runId, "debug", { op: "adapters" }));
    expect(ranFromWorkspace(ws)).toBe("");
    await expectTranscript(entries(adapters, ["debugpy:", "delve:"]), `transcripts/describe-runs-nothing/debug-adapters-${placement}.txt`);
  });
});
