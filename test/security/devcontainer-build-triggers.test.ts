// Promise: what a workspace's Dockerfile makes the engine fetch is all read before the build, however
// it is reached. ONBUILD triggers run in a later stage that starts FROM the stage that set them (and
// in a later build FROM the tenant's own build), so an ADD of a URL or a COPY --from of another image
// inside one would reach the engine unchecked: such a Dockerfile is refused (devcontainer_invalid),
// and a base carrying triggers too. A FROM names a stage only by its name (the builder reads `FROM 0`
// as the image `0`, which it would pull), so a stage index in FROM is checked as an image. A canary
// listener on loopback sees no connection. An ADD source the builder would expand ($VAR from a stage's
// ARG or ENV) or unescape is refused: it could become a URL the check never saw.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import { outcome } from "../helpers/call-outcome.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { type Canary, startCanary } from "../helpers/canary.js";

const BASE = imageTags().runtime;
/** An image on the engine that carries a build trigger (made here, outside Enclave). */
const TRIGGERED = "enclave-redteam-onbuild-base:test";
let fx: Fixture;
let canary: Canary;

beforeAll(async () => {
  fx = await startFixture();
  canary = await startCanary();
}, 120_000);
afterAll(async () => {
  execFileSync("docker", ["image", "rm", "-f", TRIGGERED], { stdio: "ignore", timeout: 60_000 });
  await canary?.close();
  await fx?.close();
});

async function devcontainer(id: string, dockerfile: string): Promise<void> {
  const workspace = (await fx.client.createConversation(id)).workspacePath;
  const dir = join(workspace, ".devcontainer");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  writeFileSync(join(dir, "devcontainer.json"), JSON.stringify({ build: { dockerfile: "Dockerfile" } }));
  writeFileSync(join(dir, "Dockerfile"), dockerfile);
}

describe("dev container build triggers and stage indexes", () => {
  /** Each dev container is refused before any build (the conversation stays on the host) and nothing dialled the canary. */
  async function expectRefused(cases: Array<[string, string]>): Promise<void> {
    for (const [name, dockerfile] of cases) {
      await devcontainer(name, dockerfile);
      const o = await outcome(fx.client.startEnclosure(name, { devcontainer: true }));
      expect(o.code, name).toBe("devcontainer_invalid");
      expect((await fx.client.getConversation(name)).placement).toBe("host");
    }
    expect(canary.connections()).toBe(0);
  }

  it("refuses ONBUILD before the engine is asked, so a trigger's ADD of a URL dials nothing", async () => {
    const reg = `127.0.0.1:${canary.port}`;
    const cases: Array<[string, string]> = [
      ["onbuild-add", `FROM ${BASE} AS first\nONBUILD ADD http://${reg}/payload /payload\nFROM first\n`],
      ["onbuild-copy", `FROM ${BASE} AS first\nONBUILD COPY --from=${reg}/y:2 /etc/hostname /h\nFROM first\n`],
      ["onbuild-lower", `FROM ${BASE} AS first\nonbuild add http://${reg}/payload /payload\nFROM first\n`],
    ];
    await expectRefused(cases);
  }, 300_000);

  it("refuses a base on the engine that carries ONBUILD triggers", async () => {
    execFileSync("docker", ["build", "-q", "-t", TRIGGERED, "-"], {
      input: `FROM ${BASE}\nONBUILD ADD http://127.0.0.1:${canary.port}/payload /payload\n`,
      stdio: ["pipe", "ignore", "inherit"],
      timeout: 120_000,
    });
    await devcontainer("triggered-base", `FROM ${TRIGGERED}\n`);
    const o = await outcome(fx.client.startEnclosure("triggered-base", { devcontainer: true }));
    expect(o.code).toBe("devcontainer_invalid");
    expect(canary.connections()).toBe(0);
  }, 300_000);

  it("refuses an ADD source that the builder would expand or unescape into a URL", async () => {
    const url = `http://127.0.0.1:${canary.port}/payload`;
    const cases: Array<[string, string]> = [
      ["add-stage-arg", `FROM ${BASE}\nARG U=${url}\nADD $U /payload\n`],
      ["add-env", `FROM ${BASE}\nENV U=${url}\nADD \${U} /payload\n`],
      ["add-escaped", `FROM ${BASE}\nADD h\\ttp://127.0.0.1:${canary.port}/payload /payload\n`],
      ["add-json-env", `FROM ${BASE}\nENV U=${url}\nADD ["$U", "/payload"]\n`],
    ];
    await expectRefused(cases);
  }, 300_000);

  it("checks `FROM 0` as the image it names, not as the first stage", async () => {
    await devcontainer("from-index", `FROM ${BASE}\nFROM 0\n`);
    const o = await outcome(fx.client.startEnclosure("from-index", { devcontainer: true }));
    // Refused before the build as a missing image (naming it), not by a failed pull inside the build.
    expect(o.code).toBe("image_unusable");
    expect((await fx.client.getConversation("from-index")).placement).toBe("host");
  }, 300_000);
});
