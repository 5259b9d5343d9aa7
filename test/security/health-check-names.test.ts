// Promise: the health service, which answers strangers, never quotes what a stranger sent it. Check
// for an unknown service is NOT_FOUND with a fixed text; a name of a megabyte (the message may be
// far larger) must neither leave the call unanswered nor hold the server's shutdown, as quoting it
// into the status trailer did. A Watch keeps its request while it is open, so one for a name
// longer than any service's is refused rather than held.
import {
  type ChannelCredentials,
  type Client,
  type ClientReadableStream,
  credentials,
  makeGenericClientConstructor,
  Metadata,
  type ServiceError,
  status,
} from "@grpc/grpc-js";
import { service as healthService } from "grpc-health-check";
import { describe, expect, it } from "vitest";
import { startTenantService } from "../helpers/tenant-service.js";

interface HealthClient extends Client {
  watch(req: { service: string }, metadata?: Metadata): ClientReadableStream<{ status: string }>;
  check(
    req: { service: string },
    metadata: Metadata,
    options: { deadline: number },
    callback: (err: ServiceError | null, res?: { status: string }) => void,
  ): unknown;
}
const HealthClient = makeGenericClientConstructor(healthService, "Health") as unknown as new (address: string, creds: ChannelCredentials) => HealthClient;

function check(client: HealthClient, service: string): Promise<{ status?: string; code?: number; details?: string }> {
  return new Promise((resolve) =>
    client.check({ service }, new Metadata(), { deadline: Date.now() + 5_000 }, (err, res) =>
      resolve(err ? { code: err.code, details: err.details } : { status: res?.status }),
    ),
  );
}

describe("health Check's answer to a stranger's service name", () => {
  it("is NOT_FOUND with a fixed text, however long the name, and the server still closes promptly", async () => {
    const svc = await startTenantService<"acme">({ tenants: ["acme"], transport: "unix", prefix: "enclave-health-names-" });
    const client = new HealthClient(svc.server.address, credentials.createInsecure());
    try {
      expect(await check(client, "")).toEqual({ status: "SERVING" });
      for (const name of ["x".repeat(1024 * 1024), "no.such.Service"]) {
        const answer = await check(client, name);
        expect(answer.code, `a name of ${name.length} characters`).toBe(status.NOT_FOUND);
        expect(answer.details).not.toContain(name);
        expect(answer.details?.length).toBeLessThan(200);
      }
    } finally {
      client.close();
      const closing = Date.now();
      await svc.close();
      expect(Date.now() - closing, "closing the server took this long").toBeLessThan(15_000);
    }
  }, 60_000);

  it("refuses a Watch for a name longer than any service's instead of holding it, and still takes a short unknown one", async () => {
    const svc = await startTenantService<"acme">({ tenants: ["acme"], transport: "unix", prefix: "enclave-health-watch-" });
    const client = new HealthClient(svc.server.address, credentials.createInsecure());
    const watchOnce = (service: string): Promise<{ first?: string; code?: number }> =>
      new Promise((resolve) => {
        const stream = client.watch({ service }, new Metadata());
        stream.on("data", (res: { status: string }) => {
          resolve({ first: res.status });
          stream.cancel();
        });
        stream.on("error", (err: ServiceError) => resolve({ code: err.code }));
      });
    try {
      expect(await watchOnce("x".repeat(1024 * 1024))).toEqual({ code: status.INVALID_ARGUMENT });
      expect(await watchOnce("no.such.Service")).toEqual({ first: "SERVICE_UNKNOWN" });
    } finally {
      client.close();
      await svc.close();
    }
  }, 60_000);
});
