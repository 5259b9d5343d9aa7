// Promise: an image's VOLUMEs leave nothing on the engine. Before an enclosure starts, Enclave reads
// an image's files (its /etc/passwd, its libc) through a never-started container of that image; the
// engine makes (and fills from the image) an anonymous volume for each VOLUME the image declares
// when such a container is created, so those containers are removed with their volumes, or every
// start would leave a filled copy of each VOLUME on the engine's disk.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";

const BASE = imageTags().runtime;
const MARK = `marker-${randomBytes(6).toString("hex")}`;
const IMAGE = `enclave-redteam-volumes:${MARK}`;
const VOLUMES = "/var/lib/docker/volumes";
let fx: Fixture;

/** The engine's volumes holding this test's marker file: copies of the image's VOLUME. */
function markedVolumes(): string[] {
  return readdirSync(VOLUMES).filter((v) => existsSync(join(VOLUMES, v, "_data", MARK)));
}

beforeAll(async () => {
  execFileSync("docker", ["build", "-q", "-t", IMAGE, "-"], {
    input: `FROM ${BASE}\nUSER root\nRUN mkdir /rtvol && echo x > /rtvol/${MARK}\nVOLUME /rtvol\nUSER enclave\n`,
    stdio: ["pipe", "ignore", "inherit"],
    timeout: 120_000,
  });
  fx = await startFixture();
}, 180_000);
afterAll(async () => {
  await fx?.close();
  for (const v of markedVolumes()) execFileSync("docker", ["volume", "rm", "-f", v], { stdio: "ignore", timeout: 60_000 });
  execFileSync("docker", ["image", "rm", "-f", IMAGE], { stdio: "ignore", timeout: 60_000 });
});

it("leaves no volume of an image's VOLUME behind after reading the image and running it", async () => {
  await fx.client.createConversation("vessel-volumes");
  const conv = await fx.client.startEnclosure("vessel-volumes", { image: IMAGE });
  expect(conv.placement).toBe("enclosure");
  await fx.client.stopEnclosure("vessel-volumes");
  expect(markedVolumes()).toEqual([]);
}, 300_000);
