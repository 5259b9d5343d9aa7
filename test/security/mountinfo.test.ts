// Promise: /proc/self/mountinfo inside an enclosure reveals no host path Enclave can keep out of it.
// - The agent bundle is copied into a volume of the container's own, not bind-mounted from the repo:
//   the repository's path never shows.
// - Copy mode's /workspace is its own ext4 volume: the mount's root field is "/", its source a loop
//   device, so neither the host workspace nor the data folder shows.
// What remains (known and accepted, so not tested away): in bind mode the kernel's mount-root field names the
// workspace folder's path within its host filesystem, as any bind mount does; the engine's own
// paths (/var/lib/docker/...) show for the agent volume, /etc/hosts and the root overlay.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";

let fx: Fixture;

beforeAll(async () => {
  fx = await startFixture();
});
afterAll(async () => fx?.close());

async function mountinfo(id: string, workspaceMode: "bind" | "copy"): Promise<{ text: string; workspace: string }> {
  const workspace = (await fx.client.createConversation(id)).workspacePath;
  await fx.client.startEnclosure(id, { workspaceMode });
  const run = (await fx.client.openRun(id, { approvalPolicy: "never" })).id;
  const r = await fx.client.callTool(run, "exec", { command: "cat /proc/self/mountinfo" });
  expect(r.isError, resultText(r)).toBe(false);
  return { text: resultText(r), workspace };
}

describe("mountinfo inside an enclosure", () => {
  it("bind mode: the repository (where the agent bundle is built) does not show", async () => {
    const { text } = await mountinfo("mounts-bind", "bind");
    expect(text).toMatch(/ \/opt\/enclave\/agent /);
    expect(text).not.toContain(repoRoot);
    expect(text).not.toContain(fx.cp.config.agentBundleDir);
  });

  it("copy mode: neither the host workspace, the data folder nor the repository shows", async () => {
    const { text, workspace } = await mountinfo("mounts-copy", "copy");
    const line = text.split("\n").find((l) => l.split(" ")[4] === "/workspace") ?? "";
    expect(line).toMatch(/^\d+ \d+ \d+:\d+ \/ \/workspace .* - ext4 \/dev\/loop\d+ /);
    expect(text).not.toContain(workspace);
    expect(text).not.toContain(fx.dataDir);
    expect(text).not.toContain(repoRoot);
  });
});
