// Draining is bounded: a call still running at the drain limit is cut and the server closes anyway;
// calls made while draining are refused with the stable code `draining`, streams included.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ControlPlaneCallError, ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { loadConfig } from "@enclave/control-plane/config.js";
import { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { serveControlPlane } from "@enclave/control-plane/server/serve.js";
import { until } from "../helpers/wait.js";

const dataDir = mkdtempSync(join(tmpdir(), "enclave-drain-bound-"));
let cp: ControlPlane | undefined;

afterAll(async () => {
  await cp?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("draining", () => {
  it("refuses new calls and streams as draining, and cuts a call still running at the limit", async () => {
    const config = loadConfig({ dataDir, listen: `unix://${join(dataDir, "cp.sock")}` });
    cp = await ControlPlane.start(config);
    const server = await serveControlPlane(cp, config.listen);
    // The server's own answer while draining is what is tested, so the client asks once (no retry).
    const client = new ControlPlaneClient(server.address, { retry: false });
    await client.createConversation("drain-bound");
    const runId = (await client.openRun("drain-bound", { approvalPolicy: "never", resources: ["workspace", "shell"] })).id;
    let started = false;
    const long = client
      .callTool(runId, "exec", { command: "echo started; sleep 60" }, (e) => {
        if (e.event?.$case === "output" && e.event.value.data.toString().includes("started")) started = true;
      })
      .then(
        (r) => ({ errorCode: r.errorCode }),
        (err: unknown) => ({ thrown: err }),
      );
    await until(() => started, "the long call to start");

    const draining = server.drainAndClose(500);
    const unary = await client.listConversations().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(unary).toBeInstanceOf(ControlPlaneCallError);
    expect((unary as ControlPlaneCallError).code).toBe("draining");
    const streamed = await client.callTool(runId, "list", {}).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect((streamed as ControlPlaneCallError).code).toBe("draining");

    expect(await draining, "the long call did not finish within the limit").toBe(false);
    // Cut, not left hanging: the call ends once the server closed.
    expect(await long).not.toEqual({ errorCode: "" });
    client.close();
  });
});
