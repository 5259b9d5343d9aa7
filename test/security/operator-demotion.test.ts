// Promise: an operator's view ends when its operator flag does. A token's tenant demoted from
// operator to plain tenant (the token file edited, the token kept) must not keep what its token
// opened as an operator: an audit subscription that follows every tenant's events is ended (as a
// revoked token's streams are, with unauthenticated), and opened again it sees its own tenant's
// events only. A real control plane with a token file, through the real API.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { credentials, Metadata, type ServiceError } from "@grpc/grpc-js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ControlPlaneClient } from "../../control-plane/src/client/control-plane-client.js";
import { loadConfig } from "../../control-plane/src/config.js";
import { ControlPlane } from "../../control-plane/src/control-plane.js";
import { ERROR_CODE_TRAILER } from "../../control-plane/src/errors.js";
import { serveControlPlane, type ServingControlPlane } from "../../control-plane/src/server/serve.js";
import { addToken, readTokenFile, writeTokenFile } from "../../control-plane/src/tenants/token-file.js";
import { type AuditEvent, ControlPlaneClient as GrpcClient } from "../../proto/gen/enclave/control/v1/control.js";

let dir: string;
let tokensFile: string;
let cp: ControlPlane;
let server: ServingControlPlane;
let opsToken: string;
let acme: ControlPlaneClient;
let raw: GrpcClient;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "enclave-demotion-"));
  tokensFile = join(dir, "tokens.json");
  opsToken = addToken(tokensFile, "ops", { operator: true }).token;
  const acmeToken = addToken(tokensFile, "acme").token;
  const config = loadConfig({ dataDir: join(dir, "data"), listen: `unix://${join(dir, "cp.sock")}`, api: { tokensFile } });
  cp = await ControlPlane.start(config);
  server = await serveControlPlane(cp, config.listen, config.api);
  acme = new ControlPlaneClient(server.address, { token: acmeToken });
  raw = new GrpcClient(server.address, credentials.createInsecure());
}, 60_000);

afterAll(async () => {
  acme?.close();
  raw?.close();
  await server?.close();
  await cp?.close();
  rmSync(dir, { recursive: true, force: true });
});

it("ends an operator's audit subscription when the operator flag is taken away", async () => {
  const md = new Metadata();
  md.set("authorization", `Bearer ${opsToken}`);
  const stream = raw.subscribeAudit({ conversationId: "", includeHistory: false, historyOnly: false }, md);
  const seen: AuditEvent[] = [];
  let status = "";
  const ended = new Promise<void>((resolve) => {
    stream.on("data", (e: AuditEvent) => seen.push(e));
    stream.on("error", (err: ServiceError) => {
      status = String(err.metadata?.get(ERROR_CODE_TRAILER)[0] ?? err.code);
      resolve();
    });
    stream.on("end", () => resolve());
  });
  // While an operator, it follows another tenant's events.
  await acme.createConversation("before");
  for (let i = 0; i < 50 && !seen.some((e) => e.tenant === "acme"); i++) await new Promise((r) => setTimeout(r, 100));
  expect(seen.some((e) => e.tenant === "acme")).toBe(true);

  const file = readTokenFile(tokensFile);
  const ops = file.tenants.ops;
  if (!ops) throw new Error("the token file has no tenant ops");
  ops.operator = false;
  writeTokenFile(tokensFile, file);
  // Any call makes the control plane read the file again (as a revocation does).
  await acme.listConversations();
  const outcome = await Promise.race([ended.then(() => "ended"), new Promise<string>((r) => setTimeout(() => r("open"), 3_000))]);
  seen.length = 0;
  await acme.createConversation("after");
  await new Promise((r) => setTimeout(r, 500));
  stream.cancel();
  expect(seen.filter((e) => e.tenant === "acme")).toEqual([]);
  expect(outcome).toBe("ended");
  expect(status).toBe("unauthenticated");
}, 60_000);
