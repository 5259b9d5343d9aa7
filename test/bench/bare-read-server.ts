// The throughput bench's peer: a bare grpc-js server that reads a file and returns its bytes, on a
// unix socket, with no tool layer at all. usage: node bare-read-server.js SOCKET ROOT
// A request is "conversation/path" as UTF-8; the answer is the file's bytes.
import { readFile } from "node:fs/promises";
import { join, normalize } from "node:path";
import { Server, ServerCredentials, type ServiceDefinition, status } from "@grpc/grpc-js";

const identity = (b: Buffer): Buffer => b;
export const BARE_READ_SERVICE: ServiceDefinition = {
  read: {
    path: "/bench.BareFiles/Read",
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
};

function main(): void {
  const [socket, root] = process.argv.slice(2);
  if (!socket || !root) {
    process.stderr.write("usage: bare-read-server SOCKET ROOT\n");
    process.exit(2);
  }
  const server = new Server();
  server.addService(BARE_READ_SERVICE, {
    read: (call: { request: Buffer }, cb: (err: { code: number; details: string } | null, res?: Buffer) => void) => {
      const rel = normalize(call.request.toString("utf8"));
      if (rel.startsWith("..") || rel.startsWith("/")) return cb({ code: status.INVALID_ARGUMENT, details: "outside the root" });
      readFile(join(root, rel)).then(
        (b) => cb(null, b),
        (err: Error) => cb({ code: status.NOT_FOUND, details: err.message }),
      );
    },
  });
  server.bindAsync(`unix://${socket}`, ServerCredentials.createInsecure(), (err) => {
    if (err) {
      process.stderr.write(`bare-read-server: ${err.message}\n`);
      process.exit(1);
    }
    process.stdout.write("listening\n");
  });
}

if (process.argv[1]?.endsWith("bare-read-server.js")) main();
