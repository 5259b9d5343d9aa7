// Promise: the health service, which answers strangers, never quotes what a stranger sent it. Check
// for an unknown service is NOT_FOUND with a fixed text; a name of a megabyte (the message may be
// far larger) must neither leave the call unanswered nor hold the server's shutdown, as quoting it
// into the status trailer did.
import { type ChannelCredentials, type Client, credentials, makeGenericClientConstructor, Metadata, type ServiceError, status } from "@grpc/grpc-js";
import { service as healthService } from "grpc-health-check";
import { describe, expect, it } from "vitest";
import { startTenantService } from "../helpers/tenant-service.js";

interface HealthClient extends Client {
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
});
