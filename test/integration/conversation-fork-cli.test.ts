// `enclave conversations fork` through the real CLI against a real control plane (host placement):
// what it prints, --json, --workspace-only and the usage error without a source.
import { execFile, execFileSync } from "node:child_process";
import { linkSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";

let fx: Fixture;

/** Asynchronously: the control plane answering it runs in this process. */
async function enclave(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  try {
    const r = await promisify(execFile)(join(repoRoot, "bin", "enclave"), [...args, "--address", fx.client.address], { encoding: "utf8", timeout: 30_000 });
    return { ...r, code: 0 };
  } catch (err) {
    const e = err as { stdout: string; stderr: string; code: number };
    return { stdout: e.stdout, stderr: e.stderr, code: e.code };
  }
}

describe("enclave conversations fork", () => {
  beforeAll(async () => {
    fx = await startFixture();
    const ws = (await fx.client.createConversation("src")).workspacePath;
    writeFileSync(join(ws, "a.txt"), "alpha\n");
    mkdirSync(join(ws, "sub"));
    symlinkSync("../a.txt", join(ws, "sub", "link-in"));
    symlinkSync("/etc/passwd", join(ws, "link-out"));
    execFileSync("mkfifo", [join(ws, "pipe")]);
    writeFileSync(join(ws, "h1"), "h\n");
    linkSync(join(ws, "h1"), join(ws, "h2"));
  });
  afterAll(async () => fx?.close());

  it("prints the new conversation and every line of what was not copied", async () => {
    const out = await enclave(["conversations", "fork", "src", "cli-fork"]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^forked src into cli-fork\n/);
    expect(out.stdout).toMatch(/not copied: link-out: symbolic link to \/etc\/passwd, which leaves the workspace/);
    expect(out.stdout).toMatch(/not copied: pipe: a FIFO/);
    expect(out.stdout).toMatch(/not copied: \(memory\)/);
    expect(readFileSync(join(fx.cp.getConversation("cli-fork").workspacePath, "sub", "link-in"), "utf8")).toBe("alpha\n");
  });

  it("--json prints the conversation; --workspace-only is taken; no source is a usage error", async () => {
    const out = await enclave(["conversations", "fork", "src", "cli-fork-2", "--workspace-only", "--json"]);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ id: "cli-fork-2", forkedFrom: "src", placement: "host" });
    expect((await enclave(["conversations", "fork"])).code).toBe(2);
    expect((await enclave(["conversations", "fork", "src", "cli-fork-2"])).code).not.toBe(0);
  });
});
