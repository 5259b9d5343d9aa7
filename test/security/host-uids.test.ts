// A conversation's host uid is its own for as long as the conversation lives: recorded in the data
// folder, it is the same after a restart of the control plane, and never given to another
// conversation while it is held (also not to one made after the restart). The cgroups a control
// plane that died could not remove are swept by the next one on the same data folder.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ControlPlaneClient, resultText } from "@enclave/client/control-plane-client.js";
import { loadConfig } from "@enclave/control-plane/config.js";
import { ControlPlane } from "@enclave/control-plane/control-plane.js";
import { serveControlPlane } from "@enclave/control-plane/server/serve.js";

const dataDir = mkdtempSync(join(tmpdir(), "enclave-host-uids-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** A control plane on the data folder, for the duration of `use`. */
async function withControlPlane<T>(use: (client: ControlPlaneClient, cp: ControlPlane) => Promise<T>): Promise<T> {
  const config = loadConfig({ dataDir, listen: `unix://${join(dataDir, "cp.sock")}` });
  const cp = await ControlPlane.start(config);
  const server = await serveControlPlane(cp, config.listen);
  const client = new ControlPlaneClient(server.address);
  try {
    return await use(client, cp);
  } finally {
    client.close();
    await server.close();
    await cp.close();
  }
}

async function uidOf(client: ControlPlaneClient, id: string): Promise<number> {
  const run = (await client.openRun(id, { approvalPolicy: "never" })).id;
  const text = resultText(await client.callTool(run, "exec", { command: "id -u" }));
  return Number(/^(\d+)$/m.exec(text)?.[1]);
}

describe("host uids", () => {
  it("stay each conversation's across a restart, and are never given to another while held; cgroups left by a crash are swept", async () => {
    const leftovers: string[] = [];
    const first = await withControlPlane(async (client, cp) => {
      await client.createConversation("a");
      await client.createConversation("b");
      const uids = { a: await uidOf(client, "a"), b: await uidOf(client, "b") };
      // What a control plane that died leaves: an empty cgroup beside its sandboxes' (in each controller).
      for (const folder of cp.hostAgents.auditTarget("a")?.cgroup?.folders.values() ?? []) {
        const left = join(dirname(folder), "left-by-a-crash");
        mkdirSync(left);
        leftovers.push(left);
      }
      return uids;
    });
    expect(first.a).not.toBe(first.b);
    expect(leftovers).toHaveLength(3);
    await withControlPlane(async (client, cp) => {
      // Swept at start.
      expect(leftovers.filter((f) => existsSync(f))).toEqual([]);
      // (The first call after a restart begins with a note that the agent's kernels were lost.)
      expect(await uidOf(client, "a")).toBe(first.a);
      await client.createConversation("c");
      const c = await uidOf(client, "c");
      expect([first.a, first.b]).not.toContain(c);
      // Deleting a conversation frees its uid (nothing of its sandbox runs any more).
      await client.deleteConversation("a");
      expect(readdirSync(join(dataDir, "host-uids")).map(Number).sort()).toEqual([first.b, c].sort());
      await cp.deleteConversation("b");
      await cp.deleteConversation("c");
    });
  }, 120_000);
});
