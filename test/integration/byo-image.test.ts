// Any image as an enclosure: two images of a user's, built here from different bases, neither with
// Node — one from Debian (root user, python3 and pylsp), one from scratch (a glibc and a shell, its
// own user and PATH). The agent and the pinned Node are injected read-only; the enclosure suite's
// core cases run against each, and the hardening and its audit are those of Enclave's own image.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@enclave/control-plane/config.js";
import { resultText } from "@enclave/client/control-plane-client.js";
import { INJECTED_NODE, nodeVolumeName } from "@enclave/control-plane/placement/agent-injection.js";
import { NODE_RUNTIME } from "@enclave/control-plane/placement/node-runtime.js";
import { type ByoImage, byoImage } from "../helpers/byo-images.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { TEST_RUNTIMES } from "../helpers/runtimes.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const docker = new Docker();

/** `groups`: the supplementary groups kept, the image USER's gid (the Debian image's user is root: none). */
const CASES: Array<{ image: ByoImage; groups: string[]; python: boolean }> = [
  { image: "python-debian", groups: [], python: true },
  { image: "scratch-glibc", groups: ["2345"], python: false },
];

describe.each(CASES)("an enclosure from $image", ({ image, groups, python }) => {
  let fx: Fixture;
  let runId: string;
  let workspace: string;
  let tag: string;
  const id = `byo-${image}`;

  beforeAll(async () => {
    tag = await byoImage(image);
    fx = await startFixture();
    workspace = (await fx.client.createConversation(id)).workspacePath;
    writeFileSync(join(workspace, "from-host.txt"), "host wrote this\n");
    writeFileSync(join(workspace, "pyproject.toml"), '[project]\nname = "byo"\n');
    writeFileSync(join(workspace, "app.py"), "def greet(name):\n    return 'hi ' + name\n\nprint(greet('x'))\n");
    const conv = await fx.client.startEnclosure(id, { image: tag });
    expect(conv.placement).toBe("enclosure");
    runId = (await fx.client.openRun(id, { approvalPolicy: "never" })).id;
  }, 600_000);
  afterAll(async () => fx?.close());

  async function ok(tool: string, args: Record<string, unknown>): Promise<string> {
    const r = await fx.client.callTool(runId, tool, args);
    expect(r.isError, resultText(r)).toBe(false);
    return resultText(r);
  }

  it("keeps every hardening setting, runs as a non-root user, and mounts the injected Node read-only", async () => {
    const conv = await fx.client.getConversation(id);
    expect(conv.enclosure?.image).toBe(tag);
    expect(conv.enclosure?.relaxations).toEqual([]);
    const info = await docker.getContainer(conv.enclosure?.containerId ?? "").inspect();
    expect(info.HostConfig.NetworkMode).toBe("none");
    expect(info.HostConfig.CapDrop).toEqual(["ALL"]);
    expect(info.HostConfig.CapAdd ?? []).toEqual([]);
    expect(info.HostConfig.ReadonlyRootfs).toBe(true);
    expect(info.HostConfig.SecurityOpt).toContain("no-new-privileges:true");
    expect(info.HostConfig.PidsLimit).toBeGreaterThan(0);
    expect(info.HostConfig.Memory).toBeGreaterThan(0);
    // Its own uid from the reserved range; the image user's group kept as a supplementary one.
    const own = Number(info.Config.User?.split(":")[0]);
    expect(info.Config.User).toBe(`${own}:${own}`);
    expect(own).toBeGreaterThanOrEqual(loadConfig().enclosure.uids.base);
    expect(info.HostConfig.GroupAdd ?? []).toEqual(groups);
    expect(info.Config.Healthcheck?.Test).toEqual(["NONE"]);
    const node = (info.Mounts ?? []).find((m) => m.Destination === INJECTED_NODE.dir);
    expect(node?.Type).toBe("volume");
    expect(node?.Name).toBe(nodeVolumeName());
    expect(node?.RW).toBe(false);
  });

  it("reads what the host wrote and writes what the host reads", async () => {
    await ok("write", { path: "inside.txt", content: "from the enclosure\n" });
    expect(readFileSync(join(workspace, "inside.txt"), "utf8")).toBe("from the enclosure\n");
    expect(await ok("read", { path: "from-host.txt" })).toBe("host wrote this\n");
  });

  it("runs exec inside as the enclosure's user, with the image's own PATH first and the injected Node unwritable", async () => {
    const out = await ok("exec", {
      command: `id -u; id -G; echo "PATH=$PATH"; "$ENCLAVE_NODE" --version; touch ${INJECTED_NODE.node} 2>&1 || echo cannot-touch`,
    });
    const own = (await docker.getContainer((await fx.client.getConversation(id)).enclosure?.containerId ?? "").inspect()).Config.User?.split(":")[0] ?? "";
    expect(out).toMatch(new RegExp(`^${own}\n${[own, ...groups].join(" ")}$`, "m"));
    expect(out).toMatch(new RegExp(`PATH=.*:${INJECTED_NODE.bin}$`, "m"));
    expect(out).toContain(`v${NODE_RUNTIME.version}`);
    expect(out).toMatch(/cannot-touch/);
  });

  it("finds code with ast_grep", async () => {
    expect(await ok("ast_grep", { pattern: "greet($A)", path: "app.py" })).toMatch(/app\.py:4/);
  });

  it("runs a JavaScript cell on the injected Node", async () => {
    expect(await ok("eval", { language: "javascript", code: "process.version", description: "print the version of the injected Node" })).toContain(
      `v${NODE_RUNTIME.version}`,
    );
  });

  if (python) {
    it("runs a Python cell on the image's python3", async () => {
      expect(
        await ok("eval", { language: "python", code: "import sys; print(sys.executable, 6 * 7)", description: "check the image python runs a cell" }),
      ).toMatch(/python\S* 42$/m);
    });
    it("answers lsp through the image's own Python language server (pylsp)", async () => {
      const def = await ok("lsp", { action: "definition", file: "app.py", line: 4, symbol: "greet" });
      expect(def).toContain("app.py:1:5");
      // The image has no pyright: lsp status says so, with how to install it.
      const pyright = (await ok("lsp", { action: "status" })).split("\n").filter((l) => l.trimStart().startsWith("pyright "));
      await expectTranscript(pyright.join("\n"), `transcripts/byo-image/pyright-status-${id}.txt`);
    });
  } else {
    it("says plainly that the image has no Python, with the install hint", async () => {
      const r = await fx.client.callTool(runId, "eval", { language: "python", code: "print(1)", description: "try Python where the image has none" });
      expect(r.errorCode).toBe("placement_unavailable");
      await expectTranscript(`${r.errorCode}\n${resultText(r)}`, `transcripts/byo-image/no-python-${id}.txt`);
    });
  }

  it("passes the egress audit", async () => {
    const report = await fx.client.auditEnclosure(id);
    for (const c of report.checks) expect(c.ok, `${c.item}: outside ${c.outside}; inside ${c.inside}`).toBe(true);
    expect(report.passed).toBe(true);
  });
});

describe.each(TEST_RUNTIMES)("an image from scratch under %s, copy mode with a disk limit", (runtime) => {
  let fx: Fixture;
  const id = `byo-copy-${runtime}`;

  beforeAll(async () => {
    const tag = await byoImage("scratch-glibc");
    fx = await startFixture();
    writeFileSync(join((await fx.client.createConversation(id)).workspacePath, "kept.txt"), "copied in\n");
    await fx.client.startEnclosure(id, { image: tag, runtime, workspaceMode: "copy", diskLimitBytes: 64 * 1024 ** 2 });
  }, 600_000);
  afterAll(async () => fx?.close());

  it("passes the egress audit, disk limit and runtime included", async () => {
    const report = await fx.client.auditEnclosure(id);
    expect(report.runtime).toBe(runtime);
    for (const c of report.checks) expect(c.ok, `${c.item}: outside ${c.outside}; inside ${c.inside}`).toBe(true);
    expect(report.passed).toBe(true);
    const run = await fx.client.openRun(id, { approvalPolicy: "never" });
    expect(resultText(await fx.client.callTool(run.id, "read", { path: "kept.txt" }))).toBe("copied in\n");
  });
});
