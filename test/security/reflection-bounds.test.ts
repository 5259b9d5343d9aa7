// Promise: a token holder cannot make the control plane hold memory without bound through server
// reflection. The package behind it answers every request at once without waiting for the caller to
// read, and each answer quotes its request: a caller that wrote requests of a megabyte and never read
// had the server take all of them and hold every answer. A request's names are bounded (a longer one
// ends the stream with INVALID_ARGUMENT, unanswered) and so is what one stream answers.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type ChannelCredentials, type ClientDuplexStream, credentials, loadPackageDefinition, Metadata, type ServiceError, status } from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REFLECTION_REQUESTS_PER_STREAM } from "@enclave/control-plane/server/reflection-service.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";

interface ReflectionClient {
  ServerReflectionInfo(metadata?: Metadata): ClientDuplexStream<object, object>;
  close(): void;
}
type ReflectionClientConstructor = new (address: string, creds: ChannelCredentials) => ReflectionClient;

function reflectionClient(): ReflectionClientConstructor {
  const root = join(dirname(createRequire(import.meta.url).resolve("@grpc/reflection/package.json")), "build", "proto");
  const loaded = loadPackageDefinition(loadSync(["grpc/reflection/v1/reflection.proto"], { includeDirs: [root], keepCase: true }));
  return (loaded.grpc as unknown as { reflection: { v1: { ServerReflection: ReflectionClientConstructor } } }).reflection.v1.ServerReflection;
}

let svc: TenantService<"acme">;
let client: ReflectionClient;

beforeAll(async () => {
  svc = await startTenantService<"acme">({ tenants: ["acme"], transport: "unix", prefix: "enclave-reflection-bounds-" });
  client = new (reflectionClient())(svc.server.address, credentials.createInsecure());
});
afterAll(async () => {
  client?.close();
  await svc?.close();
});

/** Writes the requests (reading the answers as they come only when `read`), waits, then reads: the answers and how the stream ended. */
async function unread(requests: object[], waitMs: number, read = false): Promise<{ answers: number; code: number }> {
  const md = new Metadata();
  md.set("authorization", `Bearer ${svc.tokens.acme}`);
  const stream = client.ServerReflectionInfo(md);
  const ended = new Promise<number>((resolve) => {
    stream.on("error", (err: ServiceError) => resolve(err.code));
    stream.on("status", (s: { code: number }) => resolve(s.code));
  });
  let answers = 0;
  if (read) stream.on("data", () => answers++);
  for (const r of requests) stream.write(r);
  await new Promise((r) => setTimeout(r, waitMs));
  if (!read) stream.on("data", () => answers++);
  stream.end();
  const code = await Promise.race([ended, new Promise<number>((r) => setTimeout(() => r(-1), 30_000))]);
  if (code === -1) stream.cancel();
  return { answers, code };
}

describe("server reflection's bounds", () => {
  it("ends a stream whose request names a megabyte, without answering (or quoting) it", async () => {
    const r = await unread([{ file_containing_symbol: "x".repeat(1024 * 1024) }], 500);
    expect(r.answers).toBe(0);
    expect(r.code).toBe(status.INVALID_ARGUMENT);
  });

  it("ends the stream of a caller writing megabyte requests and reading nothing at its first request", async () => {
    const r = await unread(
      Array.from({ length: 300 }, () => ({ file_containing_symbol: "x".repeat(1024 * 1024) })),
      5_000,
    );
    expect(r.answers).toBe(0);
    expect(r.code).toBe(status.INVALID_ARGUMENT);
  }, 60_000);

  it("answers at most so many requests on one stream, then ends it", async () => {
    const r = await unread(
      Array.from({ length: REFLECTION_REQUESTS_PER_STREAM + 50 }, () => ({ list_services: "*" })),
      1_000,
      true,
    );
    expect(r.answers).toBe(REFLECTION_REQUESTS_PER_STREAM);
    expect(r.code).toBe(status.RESOURCE_EXHAUSTED);
  });
});
