// The standard gRPC health service and server reflection on the API port, through real clients of
// a real control plane with token tenants (over TLS, and on a unix socket): health answers strangers
// with the serving status and nothing more, follows the server's life (NOT_SERVING once it drains),
// and bounds the Watch streams a stranger may hold; reflection lists and describes the services for
// token holders and refuses everyone else, whatever they ask of it.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import {
  type ChannelCredentials,
  type Client,
  type ClientDuplexStream,
  type ClientReadableStream,
  credentials,
  loadPackageDefinition,
  makeGenericClientConstructor,
  Metadata,
  type ServiceError,
  status,
} from "@grpc/grpc-js";
import { loadSync } from "@grpc/proto-loader";
import { service as healthService } from "grpc-health-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "@enclave/control-plane/limits.js";
import { startTenantService, type TenantService } from "../helpers/tenant-service.js";

type Tenants = "acme";

interface HealthResponse {
  status: string;
}
type Unary<Req, Res> = (req: Req, metadata: Metadata, callback: (err: ServiceError | null, res?: Res) => void) => unknown;
interface HealthClient extends Client {
  check: Unary<{ service: string }, HealthResponse>;
  list: Unary<object, { statuses: Record<string, HealthResponse> }>;
  watch(req: { service: string }, metadata?: Metadata): ClientReadableStream<HealthResponse>;
}
interface ReflectionClient extends Client {
  ServerReflectionInfo(metadata?: Metadata): ClientDuplexStream<object, ReflectionResponse>;
}
interface ReflectionResponse {
  message_response: string;
  list_services_response?: { service: Array<{ name: string }> };
  file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  error_response?: { error_code: number; error_message: string };
}
type ReflectionClientConstructor = new (address: string, creds: ChannelCredentials) => ReflectionClient;

const HealthClient = makeGenericClientConstructor(healthService, "Health") as unknown as new (address: string, creds: ChannelCredentials) => HealthClient;

/** grpc.reflection.v1 and v1alpha clients, from the .proto files @grpc/reflection ships. */
function reflectionClients(): Record<"v1" | "v1alpha", ReflectionClientConstructor> {
  const root = join(dirname(createRequire(import.meta.url).resolve("@grpc/reflection/package.json")), "build", "proto");
  const loaded = loadPackageDefinition(
    loadSync(["grpc/reflection/v1/reflection.proto", "grpc/reflection/v1alpha/reflection.proto"], { includeDirs: [root], keepCase: true }),
  );
  const service = (version: string): ReflectionClientConstructor =>
    (loaded.grpc as unknown as { reflection: Record<string, { ServerReflection: ReflectionClientConstructor }> }).reflection[version]!.ServerReflection;
  return { v1: service("v1"), v1alpha: service("v1alpha") };
}
const Reflection = reflectionClients();

function bearer(token: string | undefined): Metadata {
  const md = new Metadata();
  if (token !== undefined) md.set("authorization", `Bearer ${token}`);
  return md;
}

/** Check's answer, or the status code it failed with; the response headers come along. */
function check(client: HealthClient, service: string, token?: string): Promise<{ status?: string; code?: number; fields?: string[]; headers: string[] }> {
  return new Promise((resolve) => {
    let headers: string[] = [];
    const call = client.check({ service }, bearer(token), (err, res) =>
      resolve(err ? { code: err.code, headers } : { status: res?.status, fields: Object.keys(res ?? {}), headers }),
    ) as { on(event: "metadata", listener: (md: Metadata) => void): void };
    call.on("metadata", (md) => (headers = Object.keys(md.getMap())));
  });
}

/** One reflection request on a fresh stream: its response, or the status code the stream ended with. */
function reflect(client: ReflectionClient, request: object, token?: string): Promise<ReflectionResponse | { code: number }> {
  return new Promise((resolve) => {
    const stream = client.ServerReflectionInfo(bearer(token));
    stream.on("data", (res: ReflectionResponse) => {
      resolve(res);
      stream.end();
    });
    stream.on("error", (err: ServiceError) => resolve({ code: err.code }));
    stream.write(request);
  });
}

/** A Watch stream's statuses as they come, and how it ended. */
function watch(client: HealthClient, service: string): { seen: string[]; ended: Promise<number>; stream: ClientReadableStream<HealthResponse> } {
  const seen: string[] = [];
  const stream = client.watch({ service }, new Metadata());
  stream.on("data", (res: HealthResponse) => seen.push(res.status));
  const ended = new Promise<number>((resolve) => {
    stream.on("error", (err: ServiceError) => resolve(err.code));
    stream.on("status", (s: { code: number }) => resolve(s.code));
  });
  return { seen, ended, stream };
}

async function until(what: string, predicate: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** What the whole suite asks of one transport. */
function suite(transport: "tls" | "unix"): void {
  describe(`over ${transport === "tls" ? "TLS on 127.0.0.1" : "a unix socket"}`, () => {
    let svc: TenantService<Tenants>;
    let creds: ChannelCredentials;
    const opened: Client[] = [];
    const open = <C extends Client>(Ctor: new (address: string, creds: ChannelCredentials) => C): C => {
      const c = new Ctor(svc.server.address, creds);
      opened.push(c);
      return c;
    };

    beforeAll(async () => {
      svc = await startTenantService<Tenants>({ tenants: ["acme"], transport, prefix: "enclave-health-" });
      creds = transport === "tls" ? credentials.createSsl(svc.certs.ca) : credentials.createInsecure();
    });
    afterAll(async () => {
      for (const c of opened) c.close();
      await svc?.close();
    });

    it("Check answers a caller without a token with the serving status only, for the server and the control plane's service", async () => {
      const health = open(HealthClient);
      for (const name of ["", "enclave.control.v1.ControlPlane"]) {
        const answer = await check(health, name);
        expect(answer.status, name).toBe("SERVING");
        // Nothing beside the status: no tenant, version or service names in the body or the headers.
        expect(answer.fields).toEqual(["status"]);
        expect(answer.headers.filter((h) => !["content-type", "date", "grpc-accept-encoding", "grpc-encoding"].includes(h))).toEqual([]);
      }
      // A token, valid or not, changes nothing: health does not look at it.
      expect((await check(health, "", "enc_not-a-real-token")).status).toBe("SERVING");
      expect((await check(health, "", svc.tokens.acme)).status).toBe("SERVING");
      expect((await check(health, "enclave.control.v1.NoSuchService")).code).toBe(status.NOT_FOUND);
    });

    it("List, which names the services, wants a token", async () => {
      const health = open(HealthClient);
      const list = (token?: string): Promise<{ code?: number; names?: string[] }> =>
        new Promise((resolve) => health.list({}, bearer(token), (err, res) => resolve(err ? { code: err.code } : { names: Object.keys(res?.statuses ?? {}) })));
      expect(await list()).toEqual({ code: status.UNAUTHENTICATED });
      expect(await list("enc_not-a-real-token")).toEqual({ code: status.UNAUTHENTICATED });
      expect((await list(svc.tokens.acme)).names?.sort()).toEqual(["", "enclave.control.v1.ControlPlane"]);
    });

    for (const version of ["v1", "v1alpha"] as const) {
      it(`reflection (${version}) lists and describes the services for a token holder`, async () => {
        const reflection = open(Reflection[version]);
        const listed = (await reflect(reflection, { list_services: "*" }, svc.tokens.acme)) as ReflectionResponse;
        expect(listed.list_services_response?.service.map((s) => s.name)).toEqual(
          expect.arrayContaining(["enclave.control.v1.ControlPlane", "grpc.health.v1.Health"]),
        );
        const file = (await reflect(reflection, { file_containing_symbol: "enclave.control.v1.ControlPlane" }, svc.tokens.acme)) as ReflectionResponse;
        expect(file.file_descriptor_response?.file_descriptor_proto.length).toBeGreaterThan(0);
        expect(Buffer.concat(file.file_descriptor_response?.file_descriptor_proto ?? []).toString("latin1")).toContain("CallTool");
      });

      it(`reflection (${version}) refuses a caller without a valid token, whatever it asks`, async () => {
        const reflection = open(Reflection[version]);
        const requests = [
          { list_services: "*" },
          { file_containing_symbol: "enclave.control.v1.ControlPlane" },
          { file_by_filename: "enclave/control/v1/control.proto" },
          { all_extension_numbers_of_type: "enclave.control.v1.CallToolRequest" },
        ];
        for (const request of requests) {
          for (const token of [undefined, "enc_not-a-real-token", "", `${svc.tokens.acme}x`]) {
            expect(await reflect(reflection, request, token), `${JSON.stringify(request)} with token ${JSON.stringify(token)}`).toEqual({
              code: status.UNAUTHENTICATED,
            });
          }
        }
      });
    }

    if (transport === "tls") {
      it("bounds the Watch streams a stranger may hold, and takes new ones once some end", async () => {
        const health = open(HealthClient);
        const watches = Array.from({ length: LIMITS.healthWatchStreamsMax }, () => watch(health, ""));
        await until("every watch to see SERVING", () => watches.every((w) => w.seen[0] === "SERVING"));
        const refused = watch(health, "");
        const stillOpen = new Promise<string>((resolve) => setTimeout(() => resolve("still open"), 5_000).unref());
        expect(await Promise.race([refused.ended, stillOpen])).toBe(status.RESOURCE_EXHAUSTED);
        expect(refused.seen).toEqual([]);
        // Check is not held back by the watches.
        expect((await check(health, "")).status).toBe("SERVING");
        for (const w of watches.splice(0, 2)) w.stream.cancel();
        let again: ReturnType<typeof watch> | undefined;
        await until("a watch to be taken again", () => {
          if (again?.seen[0] === "SERVING") return true;
          again?.stream.cancel();
          again = watch(health, "");
          return false;
        });
        for (const w of [...watches, again]) w?.stream.cancel();
      });
    }

    it("Watch answers SERVICE_UNKNOWN for a name it does not know, and sees NOT_SERVING when the server drains, then ends", async () => {
      const health = open(HealthClient);
      const unknown = watch(health, "no.such.Service");
      const server = watch(health, "");
      const service = watch(health, "enclave.control.v1.ControlPlane");
      await until("the watches' first answers", () => [unknown, server, service].every((w) => w.seen.length > 0));
      expect(unknown.seen).toEqual(["SERVICE_UNKNOWN"]);
      const drained = svc.server.drainAndClose(1_000);
      for (const w of [server, service]) {
        expect(await w.ended).toBe(status.OK);
        expect(w.seen).toEqual(["SERVING", "NOT_SERVING"]);
      }
      expect(await drained).toBe(true);
    });
  });
}

suite("tls");
suite("unix");
