// Promise: whatever a tenant sends, its call is answered with a status it can branch on, and the
// connection it came on goes on answering. An error that quotes a long tenant string (hundreds of KB
// of ASCII, or of `é`, each percent-encoded into six bytes of the grpc-message trailer) is answered
// with a bounded message; a request that does not decode (an int64 past 2^53) is refused as
// invalid_arguments with the error-code trailer, and audited as a refused call. Each hostile call and
// the plain call after it go over one gRPC client, so one connection.
import { status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS as AGENT_LIMITS } from "@enclave/agent/limits.js";
import { type AuditEvent, EnclosureOptions, OpenRunRequest } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { WIDE_INT64 } from "../helpers/hostile-inputs.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";
import { type Answer, RawApi, type Rpc, type Sent } from "../helpers/raw-rpc.js";

/** An answer later than this is no answer: the call stalled. */
const DEADLINE_MS = 10_000;

let svc: TenantService<"acme">;
let conv = "";
let api: RawApi;

beforeAll(async () => {
  svc = await startTenantService({ tenants: ["acme"], prefix: "enclave-error-bounds-" });
  const c = svc.client("acme");
  try {
    conv = (await c.createConversation("bounds")).id;
  } finally {
    c.close();
  }
  // One client for every call below: one connection.
  api = new RawApi(svc.server.address, svc.certs.ca, svc.tokens.acme);
}, 120_000);

afterAll(async () => {
  api?.close();
  await svc?.close();
});

/** The hostile call's answer, after which a plain call on the same connection must be answered. */
async function thenStillAnswered<K extends Rpc>(rpc: K, sent: Sent<K>): Promise<Answer> {
  const answer = await api.call(rpc, sent, { deadlineMs: DEADLINE_MS });
  const after = await api.call("getConversation", { conversationId: conv }, { deadlineMs: DEADLINE_MS });
  expect(after.grpcCode).toBe(status.OK);
  return answer;
}

function expectRefused(answer: Answer): void {
  expect({ grpcCode: answer.grpcCode, code: answer.code }).toEqual({ grpcCode: status.INVALID_ARGUMENT, code: "invalid_arguments" });
  expect(Buffer.byteLength(encodeURI(answer.message))).toBeLessThanOrEqual(AGENT_LIMITS.statusMessageMaxBytes);
}

const LONG = { accents: "é".repeat(300_000), ascii: "a".repeat(100_000), fewAccents: "é".repeat(1_000) };

describe("a long tenant string quoted by an error", () => {
  for (const [name, text] of Object.entries(LONG)) {
    it(`OpenRun and AttachCliRun surface (${name}): refused, and the connection answers on`, async () => {
      expectRefused(await thenStillAnswered("openRun", OpenRunRequest.fromPartial({ conversationId: conv, surface: text, approvalPolicy: "never" })));
      expectRefused(await thenStillAnswered("attachCliRun", { conversationId: conv, surface: text, approvalPolicy: "never", vibeMode: false, newRun: true }));
    });

    it(`StartEnclosure network_mode and keep_capabilities (${name}): refused, and the connection answers on`, async () => {
      const start = (options: Partial<EnclosureOptions>) => ({
        conversationId: conv,
        options: EnclosureOptions.fromPartial({ workspaceMode: "copy", ...options }),
      });
      expectRefused(await thenStillAnswered("startEnclosure", start({ networkMode: text })));
      expectRefused(await thenStillAnswered("startEnclosure", start({ keepCapabilities: [text] })));
    });
  }

  it("a 70,000-character image reference: refused, and the connection answers on", async () => {
    const answer = await thenStillAnswered("startEnclosure", { conversationId: conv, options: EnclosureOptions.fromPartial({ image: "a".repeat(70_000) }) });
    expectRefused(answer);
  });
});

describe("an int64 field past 2^53", () => {
  it("is refused as invalid_arguments with the error-code trailer, audited, and the connection answers on", async () => {
    for (const v of WIDE_INT64) {
      expectRefused(
        await thenStillAnswered("openRun", OpenRunRequest.fromPartial({ conversationId: conv, approvalPolicy: "never", questionTimeoutSeconds: v })),
      );
    }
    const c = svc.client("acme");
    try {
      const events: AuditEvent[] = [];
      await c.subscribeAudit({ includeHistory: true, historyOnly: true }, (e) => events.push(e)).done;
      const refused = events.filter((e) => e.kind === "call_refused" && e.outcome === "refused:invalid_arguments" && e.tenant === "acme");
      expect(refused.map((e) => e.detail.split(" ")[0])).toContain("/enclave.control.v1.ControlPlane/OpenRun");
    } finally {
      c.close();
    }
  });
});
