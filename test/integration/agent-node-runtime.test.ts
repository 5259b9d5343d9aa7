// The Node the agent runs on in enclosures: the pinned official LTS build, reported by
// DescribePlacement, for Enclave's own image and a user's; an image whose glibc is older than that
// build needs (or that has none) is refused with `image_unusable` before anything of it runs — its
// libc.so.6 is read as data. The old images here are made FROM scratch with a stand-in libc.so.6
// stating an old version (no older Debian can be made offline), once as a file and once as the link
// to libc-2.N.so that glibc before 2.34 installs.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import { readImageGlibc } from "@enclave/control-plane/placement/image-glibc.js";
import { NODE_RUNTIME } from "@enclave/control-plane/placement/node-runtime.js";
import { byoImage } from "../helpers/byo-images.js";
import { outcome } from "../helpers/call-outcome.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";

const docker = new Docker();
const made: string[] = [];
let fx: Fixture;
let dir: string;

/** An image FROM scratch with only a stand-in libc at /lib/x86_64-linux-gnu (nothing in it can run). */
async function oldGlibcImage(name: string, files: Record<string, string>, links: Record<string, string> = {}): Promise<string> {
  const ctx = join(dir, name);
  mkdirSync(join(ctx, "lib"), { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(join(ctx, "lib", f), text);
  const linkSteps = Object.entries(links).map(([from, to]) => `ln -s ${to} /out/lib/x86_64-linux-gnu/${from}`);
  // The links are made in a stage of Enclave's base image (the scratch stage has no shell).
  const dockerfile = [
    "ARG BASE",
    "FROM ${BASE} AS parts",
    "COPY lib/ /out/lib/x86_64-linux-gnu/",
    ...(linkSteps.length ? [`RUN ${linkSteps.join(" && ")}`] : []),
    "FROM scratch",
    "COPY --from=parts /out/ /",
  ].join("\n");
  writeFileSync(join(ctx, "Dockerfile"), `${dockerfile}\n`);
  const tag = `enclave-test-glibc-${name}:1`;
  const base = imageTags().base;
  await promisify(execFile)("docker", ["build", "-q", "-t", tag, "--build-arg", `BASE=${base}`, ctx], { timeout: 300_000 });
  made.push(tag);
  return tag;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "enclave-glibc-"));
  fx = await startFixture();
}, 120_000);

afterAll(async () => {
  await fx?.close();
  for (const tag of made)
    await docker
      .getImage(tag)
      .remove({ force: true })
      .catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe("the agent's Node in enclosures", () => {
  it("runs the agent of Enclave's own image and of a user's image on the pinned LTS Node, as DescribePlacement reports", async () => {
    expect(Number(NODE_RUNTIME.version.split(".")[0])).toBeGreaterThanOrEqual(22);
    await fx.client.createConversation("own");
    await fx.client.startEnclosure("own");
    expect((await fx.client.describePlacement("own")).agentNodeVersion).toBe(`v${NODE_RUNTIME.version}`);
    const python = await byoImage("python-debian");
    expect(await readImageGlibc(docker, python)).toEqual({ major: 2, minor: 36 });
    await fx.client.createConversation("users");
    await fx.client.startEnclosure("users", { image: python });
    const d = await fx.client.describePlacement("users");
    expect(d.placement).toBe("enclosure");
    expect(d.agentNodeVersion).toBe(`v${NODE_RUNTIME.version}`);
  }, 600_000);

  it("refuses an image whose glibc is older than the Node build needs, or that has none, with image_unusable", async () => {
    const banner = await oldGlibcImage("banner", { "libc.so.6": "\0GNU C Library (GNU libc) stable release version 2.17, by Roland McGrath et al.\n\0" });
    const linked = await oldGlibcImage("linked", { "libc-2.24.so": "\0not a real library\0" }, { "libc.so.6": "libc-2.24.so" });
    const none = await oldGlibcImage("none", { "libfoo.so.1": "\0" });
    expect(await readImageGlibc(docker, banner)).toEqual({ major: 2, minor: 17 });
    expect(await readImageGlibc(docker, linked)).toEqual({ major: 2, minor: 24 });
    expect(await readImageGlibc(docker, none)).toBeUndefined();
    for (const [i, image] of [banner, linked, none].entries()) {
      const id = `old-${i}`;
      await fx.client.createConversation(id);
      const o = await outcome(fx.client.startEnclosure(id, { image }));
      expect(o.code, o.message).toBe("image_unusable");
      expect((await fx.client.getConversation(id)).enclosure).toBeUndefined();
    }
  }, 600_000);
});
