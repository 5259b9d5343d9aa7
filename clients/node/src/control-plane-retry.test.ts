// The client's retry policy against a real gRPC server that drains: a read is asked again until it is
// answered, a tool call (which may have written) is asked once, and `retry: false` turns retries off.
import { Metadata, Server, ServerCredentials, type ServerUnaryCall, type ServerWritableStream, type sendUnaryData, status } from "@grpc/grpc-js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ControlPlaneCallError, ControlPlaneClient } from "./control-plane-client.js";
import { type CallToolRequest, ControlPlaneService, type ListConversationsResponse, type ToolEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { ERROR_CODE_TRAILER } from "@enclave/proto/control-errors.js";

let server: Server;
let address = "";
let drainingAnswers = 0;
const asked = { listConversations: 0, callTool: 0 };

function draining(): Error & { code: status; metadata: Metadata } {
  const metadata = new Metadata();
  metadata.set(ERROR_CODE_TRAILER, "draining");
  return Object.assign(new Error("the control plane is shutting down"), { code: status.UNAVAILABLE, metadata });
}

beforeAll(async () => {
  server = new Server();
  const impl = {
    listConversations(_call: ServerUnaryCall<unknown, ListConversationsResponse>, cb: sendUnaryData<ListConversationsResponse>): void {
      asked.listConversations++;
      if (drainingAnswers > 0) {
        drainingAnswers--;
        cb(draining());
        return;
      }
      cb(null, { conversations: [], nextPageToken: "" });
    },
    callTool(call: ServerWritableStream<CallToolRequest, ToolEvent>): void {
      asked.callTool++;
      // grpc-js ends a server stream with a status by its error event.
      call.emit("error", draining());
    },
  };
  server.addService(ControlPlaneService, impl as never);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  address = `127.0.0.1:${port}`;
});

afterAll(() => server.forceShutdown());

it("a read is retried while the control plane drains, until it answers", async () => {
  const client = new ControlPlaneClient(address, { retry: { initialDelayMs: 5 } });
  try {
    drainingAnswers = 2;
    asked.listConversations = 0;
    expect(await client.listConversations()).toEqual([]);
    expect(asked.listConversations).toBe(3);
  } finally {
    client.close();
  }
});

it("a read gives up after the policy's attempts, and retry: false asks once", async () => {
  await using client = new ControlPlaneClient(address, { retry: { attempts: 2, initialDelayMs: 5 } });
  drainingAnswers = 5;
  asked.listConversations = 0;
  await expect(client.listConversations()).rejects.toMatchObject({ grpcCode: status.UNAVAILABLE, code: "draining" });
  expect(asked.listConversations).toBe(2);
  const once = new ControlPlaneClient(address, { retry: false });
  try {
    drainingAnswers = 5;
    asked.listConversations = 0;
    await expect(once.listConversations()).rejects.toBeInstanceOf(ControlPlaneCallError);
    expect(asked.listConversations).toBe(1);
  } finally {
    once.close();
  }
});

it("a tool call is not retried: its first attempt may have written", async () => {
  const client = new ControlPlaneClient(address, { retry: { initialDelayMs: 5 }, toolCallSession: false });
  try {
    asked.callTool = 0;
    await expect(client.callTool("r", "write", { path: "a", content: "b" }, { onEvent: () => undefined })).rejects.toMatchObject({ code: "draining" });
    expect(asked.callTool).toBe(1);
  } finally {
    client.close();
  }
});
