// Promise: no token tenant can be `local`, the implicit tenant of a control plane without tokens,
// whose conversations are keyed without a tenant prefix: such a tenant would own every record made
// before tokens were turned on. `enclave tokens add local` and addToken refuse the name, the token
// file loader refuses a file that names it (and so accepts no token of that file), and a control
// plane whose file was edited by hand to hold one gives that token nothing made before tokens.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { loadConfig } from "@enclave/control-plane/config.js";
import { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { serveControlPlane } from "@enclave/control-plane/server/serve.js";
import { addToken, readTokenFile } from "@enclave/control-plane/tenants/token-file.js";
import { outcome } from "../helpers/call-outcome.js";

const exec = promisify(execFile);
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "enclave-local-tenant-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A token file holding a token of tenant `local`, as a hand edit would make it; returns the token. */
function handEditedFile(file: string): string {
  const { token } = addToken(file, "localx");
  const text = readFileSync(file, "utf8").replaceAll('"localx"', '"local"');
  writeFileSync(file, text, { mode: 0o600 });
  return token;
}

describe("the tenant name `local`", () => {
  it("addToken refuses it as invalid_arguments and writes nothing", () => {
    const file = join(dir, "add.json");
    expect(() => addToken(file, "local")).toThrow(expect.objectContaining({ code: "invalid_arguments" }));
    expect(readTokenFile(file).tokens).toEqual([]);
  });

  it("`enclave tokens add local` fails and the file holds no such tenant", async () => {
    const file = join(dir, "cli.json");
    const run = await exec(join(repoRoot, "bin", "enclave"), ["tokens", "add", "local", "--tokens-file", file]).then(
      (r) => ({ code: 0, stdout: r.stdout }),
      (err: { code: number; stdout: string }) => ({ code: err.code, stdout: err.stdout }),
    );
    expect(run.code).not.toBe(0);
    expect(run.stdout).not.toMatch(/^enc_/m);
    expect(readTokenFile(file).tenants).not.toHaveProperty("local");
  });

  it("the token file loader refuses a file that names it", () => {
    const file = join(dir, "loader.json");
    handEditedFile(file);
    expect(() => readTokenFile(file)).toThrow(expect.objectContaining({ code: "invalid_arguments" }));
  });

  it("a hand-edited `local` token reaches nothing made before tokens were turned on", async () => {
    const dataDir = join(dir, "data");
    // First without tokens: the implicit tenant's conversation.
    const open = loadConfig({ dataDir, listen: `unix://${join(dir, "open.sock")}` });
    const before = await ControlPlane.start(open);
    const served = await serveControlPlane(before, open.listen);
    const implicit = new ControlPlaneClient(served.address);
    await implicit.createConversation("made-before-tokens");
    implicit.close();
    await served.close();
    await before.close();

    const tokensFile = join(dir, "tokens.json");
    const token = handEditedFile(tokensFile);
    const config = loadConfig({ dataDir, listen: `unix://${join(dir, "tokens.sock")}`, api: { tokensFile } });
    const cp = await ControlPlane.start(config);
    const server = await serveControlPlane(cp, config.listen, config.api);
    const local = new ControlPlaneClient(server.address, { token });
    try {
      const got = await outcome(local.getConversation("made-before-tokens"));
      expect(got).toMatchObject({ grpcCode: status.UNAUTHENTICATED, code: "unauthenticated" });
      const listed = await outcome(local.listConversations());
      expect(listed.code).toBe("unauthenticated");
    } finally {
      local.close();
      await server.close();
      await cp.close();
    }
  });
});
