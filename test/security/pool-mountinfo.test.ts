// A token tenant's enclosure claimed from the warm pool (bind mode) shows its workspace in the mount
// table, as any bind mount shows its source folder: that folder's name says nothing of the tenant or
// the conversation, and the tenant is told no workspace path.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient, resultText } from "../../control-plane/src/client/control-plane-client.js";
import { loadConfig } from "../../control-plane/src/config.js";
import { ControlPlane } from "../../control-plane/src/control-plane.js";
import { serveControlPlane, type ServingControlPlane } from "../../control-plane/src/server/serve.js";
import { addToken } from "../../control-plane/src/tenants/token-file.js";
import { makeTestCerts } from "../helpers/tls-certs.js";
import { eventually } from "../helpers/wait.js";

let dir: string;
let cp: ControlPlane;
let server: ServingControlPlane;
let acme: ControlPlaneClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "enclave-pool-mounts-"));
  const certs = makeTestCerts(dir);
  const tokensFile = join(dir, "tokens.json");
  const token = addToken(tokensFile, "acme").token;
  const config = loadConfig({ dataDir: join(dir, "data"), listen: "127.0.0.1:0", api: { tlsCertFile: certs.serverCertFile, tlsKeyFile: certs.serverKeyFile, tokensFile } });
  config.warmPool = { size: 1, profiles: [{}] };
  cp = await ControlPlane.start(config);
  server = await serveControlPlane(cp, config.listen, config.api);
  acme = new ControlPlaneClient(server.address, { tls: { rootCerts: certs.ca }, token });
  await eventually(async () => (cp.warmPool?.counts()[0]?.ready ?? 0) === 1, "the pool to fill", 120_000);
}, 180_000);

afterAll(async () => {
  acme?.close();
  await server?.close();
  if (cp) {
    for (const c of cp.listConversations()) await cp.deleteConversation(c.id).catch(() => undefined);
    await cp.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("a warm-pool enclosure's mount table", () => {
  it("names the workspace's host folder by a name that says nothing of the tenant or the conversation", async () => {
    await acme.createConversation("secret-project");
    const conv = await acme.startEnclosure("secret-project");
    expect(conv.enclosure?.origin).toBe("pool");
    const run = (await acme.openRun("secret-project", { approvalPolicy: "never" })).id;
    const r = await acme.callTool(run, "exec", { command: "cat /proc/self/mountinfo" });
    // The pool's slot, and the workspace mounted onto it at the claim.
    const lines = resultText(r)
      .split("\n")
      .filter((l) => l.split(" ")[4] === "/workspace");
    expect(lines).toHaveLength(2);
    expect(lines.join("\n")).not.toMatch(/acme|secret-project/);
    expect(conv.workspacePath).toBe("");
  }, 120_000);
});
