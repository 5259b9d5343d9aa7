// Promise: CallTool's stream is held like every other stream the service writes. A tenant that
// never reads its CallTool streams cannot make the control plane keep their output without bound:
// each finished call's unread output used to wait in memory with the call's quota slot already
// given back, so a tenant could pile up any number of them. Now each open CallTool stream counts
// against the tenant's tool-session bound until its reader has taken it (quota_exceeded past it),
// and is bounded in bytes like a CallTools session. A real control plane with a token file, host
// placement, `exec` calls whose output the client leaves unread.
import { type ClientReadableStream, credentials, Metadata, type ServiceError } from "@grpc/grpc-js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { ERROR_CODE_TRAILER } from "@enclave/control-plane/errors.js";
import { LIMITS } from "@enclave/control-plane/limits.js";
import { ControlPlaneClient as GrpcClient, type ToolEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";

/** More unread streams than a tenant may hold (LIMITS.tenantStreams.tool_session). */
const TRIES = 40;

let svc: TenantService<"acme">;
let token: string;
let acme: ControlPlaneClient;
let raw: GrpcClient;
const open: Array<ClientReadableStream<ToolEvent>> = [];

function auth(): Metadata {
  const md = new Metadata();
  md.set("authorization", `Bearer ${token}`);
  return md;
}

beforeAll(async () => {
  svc = await startTenantService({ tenants: ["acme"], transport: "unix", prefix: "enclave-calltool-bounds-" });
  token = svc.tokens.acme;
  acme = svc.client("acme");
  raw = new GrpcClient(svc.server.address, credentials.createInsecure(), { "grpc.max_receive_message_length": LIMITS.grpcMaxMessageBytes });
}, 60_000);

afterAll(async () => {
  for (const s of open) s.cancel();
  raw?.close();
  await svc?.close();
});

async function callsInFlight(conv: string, run: string): Promise<number> {
  const runs = await new Promise<Array<{ id: string; callsInFlight: number }>>((resolve, reject) =>
    raw.listRuns({ conversationId: conv }, auth(), (err, res) => (err ? reject(err) : resolve(res.runs))),
  );
  return Number(runs.find((r) => r.id === run)?.callsInFlight ?? 0);
}

it("counts a CallTool stream its reader leaves unread against the tenant's stream bound", async () => {
  const conv = (await acme.createConversation()).id;
  const run = (await acme.openRun(conv, { approvalPolicy: "never" })).id;
  // 4 MiB of output: far more than the connection's flow-control window, so the stream cannot drain.
  const args = JSON.stringify({ command: "head -c 4194304 /dev/zero | tr '\\0' y" });
  const refused: string[] = [];
  for (let i = 0; i < TRIES && refused.length === 0; i++) {
    const stream = raw.callTool({ runId: run, tool: "exec", argumentsJson: args }, auth());
    open.push(stream);
    const first = await new Promise<"data" | string>((resolve) => {
      stream.once("data", () => resolve("data"));
      stream.once("error", (err: ServiceError) => resolve(String(err.metadata?.get(ERROR_CODE_TRAILER)[0] ?? err.code)));
    });
    stream.pause();
    if (first !== "data") {
      refused.push(first);
      break;
    }
    // The call itself ends (its quota slot is given back) while its output waits for the reader.
    for (let t = 0; t < 600 && (await callsInFlight(conv, run)) > 0; t++) await new Promise((r) => setTimeout(r, 100));
    expect(await callsInFlight(conv, run)).toBe(0);
  }
  expect(refused).toEqual(["quota_exceeded"]);
  expect(open.length).toBe(LIMITS.tenantStreams.tool_session + 1);
}, 300_000);
