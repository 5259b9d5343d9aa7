// Promise: a workspace's Dockerfile makes no host process dial anywhere and spends bounded
// resources. Every base a build names (FROM, ARG-substituted FROM, COPY --from) must already be on
// the engine and allowed, or the build is refused before the engine is asked, as a missing image
// (image_unusable) naming the base; an ADD of a URL is refused (devcontainer_invalid); a canary listener on loopback sees no connection. RUN steps run in a
// cgroup of ours whose pids.max bounds a fork bomb, and the cgroup goes with the build.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import { LIMITS } from "@enclave/control-plane/limits.js";
import { imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import { outcome } from "../helpers/call-outcome.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { type Canary, startCanary } from "../helpers/canary.js";

const BASE = imageTags().runtime;
let fx: Fixture;
let canary: Canary;

beforeAll(async () => {
  fx = await startFixture();
  canary = await startCanary();
}, 120_000);
afterAll(async () => {
  await canary?.close();
  await fx?.close();
});

/** A conversation whose workspace holds a dev container built from this Dockerfile (and files beside it). */
async function devcontainer(id: string, dockerfile: string, opts: { args?: Record<string, string>; files?: Record<string, string> } = {}): Promise<void> {
  const workspace = (await fx.client.createConversation(id)).workspacePath;
  const dir = join(workspace, ".devcontainer");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  writeFileSync(join(dir, "devcontainer.json"), JSON.stringify({ build: { dockerfile: "Dockerfile", ...(opts.args ? { args: opts.args } : {}) } }));
  writeFileSync(join(dir, "Dockerfile"), dockerfile);
  for (const [name, text] of Object.entries(opts.files ?? {})) writeFileSync(join(dir, name), text);
}

describe("dev container build bases", () => {
  it("refuses a base that is not on the engine, however it is named, before the engine dials anything", async () => {
    const reg = `127.0.0.1:${canary.port}`;
    const cases: Array<[string, string, Record<string, string>?]> = [
      ["plain", `FROM ${reg}/x:latest\n`],
      ["arg-default", `ARG BASE=${reg}/x\nFROM $BASE\n`],
      ["build-arg", "ARG REG=docker.io\nFROM ${REG}/x:1\n", { REG: reg }],
      ["copy-from", `FROM ${BASE} AS first\nFROM first\nCOPY --from=${reg}/y:2 /etc/hostname /h\n`],
      ["add-url", `FROM ${BASE}\nADD http://${reg}/payload /payload\n`],
      ["continued", `FROM \\\n  ${reg}/z\n`],
    ];
    for (const [name, dockerfile, args] of cases) {
      await devcontainer(`base-${name}`, dockerfile, { args });
      const o = await outcome(fx.client.startEnclosure(`base-${name}`, { devcontainer: true }));
      // A missing base answers as a missing image does (naming it); a URL is not a base at all.
      expect(o.code, name).toBe(name === "add-url" ? "devcontainer_invalid" : "image_unusable");
      expect(o.message, name).toContain(reg);
      expect((await fx.client.getConversation(`base-${name}`)).placement).toBe("host");
    }
    expect(canary.connections()).toBe(0);
  }, 300_000);

  it("builds from a base on the engine, its own stages included", async () => {
    await devcontainer("base-stages", `FROM ${BASE} AS builder\nUSER root\nRUN echo staged > /staged\nFROM builder\n`);
    const c = await fx.client.startEnclosure("base-stages", { devcontainer: true });
    expect(c.placement).toBe("enclosure");
    const run = (await fx.client.openRun("base-stages", { approvalPolicy: "never" })).id;
    expect(resultText(await fx.client.callTool(run, "exec", { command: "cat /staged" }))).toContain("staged");
    await fx.client.stopEnclosure("base-stages");
    expect(canary.connections()).toBe(0);
  }, 300_000);
});

describe("dev container build resources", () => {
  it("runs RUN steps with no network, even for an enclosure given one", async () => {
    await devcontainer("build-net", `FROM ${BASE}\nUSER root\nRUN ls /sys/class/net > /build-nets\nUSER enclave\n`);
    // The implicit tenant may weaken its enclosure (network bridge); the build still gets none.
    await fx.client.startEnclosure("build-net", { devcontainer: true, networkMode: "bridge" });
    const run = (await fx.client.openRun("build-net", { approvalPolicy: "never" })).id;
    const nets = resultText(await fx.client.callTool(run, "exec", { command: "cat /build-nets" }));
    expect(nets).toContain("lo");
    expect(nets).not.toContain("eth0");
    await fx.client.stopEnclosure("build-net");
  }, 300_000);

  it("bounds a RUN fork bomb by the build cgroup's pids.max, and removes the cgroup after", async () => {
    const forks = [
      "import os, time",
      "kids = []",
      "for _ in range(1500):",
      "    try:",
      "        pid = os.fork()",
      "    except OSError:",
      "        break",
      "    if pid == 0:",
      "        time.sleep(120)",
      "        os._exit(0)",
      "    kids.append(pid)",
      "open('/forked', 'w').write(str(len(kids)))",
      "for k in kids:",
      "    os.kill(k, 9)",
      "    os.waitpid(k, 0)",
      "",
    ].join("\n");
    await devcontainer("fork-bomb", `FROM ${BASE}\nUSER root\nCOPY forks.py /forks.py\nRUN python3 /forks.py\nUSER enclave\n`, {
      files: { "forks.py": forks },
    });
    await fx.client.startEnclosure("fork-bomb", { devcontainer: true });
    const run = (await fx.client.openRun("fork-bomb", { approvalPolicy: "never" })).id;
    const text = resultText(await fx.client.callTool(run, "exec", { command: "cat /forked" }));
    const forked = Number(/^(\d+)$/m.exec(text)?.[1]);
    if (Number.isNaN(forked)) console.log(text);
    console.log(`a build's RUN step forked ${forked} of 1500 processes (pids.max ${LIMITS.devcontainerBuildPids})`);
    expect(forked).toBeGreaterThan(0);
    expect(forked).toBeLessThan(1500);
    expect(forked).toBeLessThan(LIMITS.devcontainerBuildPids);
    await fx.client.stopEnclosure("fork-bomb");
    for (const controller of ["pids", "memory"]) {
      const parent = join("/sys/fs/cgroup", controller, "enclave-builds");
      const left = readdirSync(parent, { withFileTypes: true }).filter((d) => d.isDirectory());
      expect(
        left.map((d) => d.name),
        controller,
      ).toEqual([]);
    }
  }, 600_000);
});
