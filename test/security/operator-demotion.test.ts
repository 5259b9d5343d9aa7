// Promise: an operator's view ends when its operator flag does. A token's tenant demoted from
// operator to plain tenant (the token file edited, the token kept) must not keep what its token
// opened as an operator: an audit subscription that follows every tenant's events is ended (as a
// revoked token's streams are, with unauthenticated), and opened again it sees its own tenant's
// events only. A real control plane with a token file, through the real API.
import { credentials, Metadata, type ServiceError } from "@grpc/grpc-js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { ERROR_CODE_TRAILER } from "@enclave/control-plane/errors.js";
import { readTokenFile, writeTokenFile } from "@enclave/control-plane/tenants/token-file.js";
import { type AuditEvent, ControlPlaneClient as GrpcClient } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";

let svc: TenantService<"acme" | "ops">;
let tokensFile: string;
let opsToken: string;
let acme: ControlPlaneClient;
let raw: GrpcClient;

beforeAll(async () => {
  svc = await startTenantService({ tenants: ["acme"], operators: ["ops"], transport: "unix", prefix: "enclave-demotion-" });
  tokensFile = svc.tokensFile;
  opsToken = svc.tokens.ops;
  acme = svc.client("acme");
  raw = new GrpcClient(svc.server.address, credentials.createInsecure());
}, 60_000);

afterAll(async () => {
  raw?.close();
  await svc?.close();
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
