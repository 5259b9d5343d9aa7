// The client library against a control plane of an older build, which has CallTool but not the
// CallTools session: its tool calls (plain and streamed) go over CallTool, and the client remembers.
import { Server, ServerCredentials, type ServerWritableStream } from "@grpc/grpc-js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ControlPlaneClient } from "./control-plane-client.js";
import { type CallToolRequest, ControlPlaneService, type ToolEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";

let server: Server;
let address = "";
const seen: string[] = [];

beforeAll(async () => {
  server = new Server();
  // Only CallTool: grpc-js answers every other method, CallTools included, with UNIMPLEMENTED.
  const impl = {
    callTool(call: ServerWritableStream<CallToolRequest, ToolEvent>): void {
      seen.push(call.request.tool);
      call.write({ event: { $case: "output", value: { stream: "stdout", data: Buffer.from("hi\n") } } });
      call.write({
        event: {
          $case: "result",
          value: {
            isError: false,
            parts: [{ part: { $case: "text", value: `ran ${call.request.tool}` }, repeatsStreamed: false }],
            errorCode: "",
            durationMs: 1,
            detailsJson: "",
          },
        },
      });
      call.end();
    },
  };
  server.addService(ControlPlaneService, impl as never);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
  );
  address = `127.0.0.1:${port}`;
});

afterAll(() => server.forceShutdown());

it("tool calls go over CallTool when the server has no CallTools session", async () => {
  const client = new ControlPlaneClient(address);
  try {
    const results = await Promise.all([client.callTool("r", "read", {}), client.callTool("r", "list", {})]);
    expect(results.map((r) => r.parts[0]?.part)).toEqual([
      { $case: "text", value: "ran read" },
      { $case: "text", value: "ran list" },
    ]);
    const events: string[] = [];
    for await (const e of client.streamTool("r", "exec", {})) events.push(e.event?.$case ?? "");
    expect(events).toEqual(["output", "result"]);
    // Later calls do not try the session again.
    expect((await client.callTool("r", "stat", {})).isError).toBe(false);
    expect(seen.sort()).toEqual(["exec", "list", "read", "stat"]);
  } finally {
    client.close();
  }
});
