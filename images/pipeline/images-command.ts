// enclave images build|push|inspect|verify: the enclosure images, built where missing or stale, each
// with its SBOM; pushed to a registry by content tag with the digests recorded; described; and
// verified by starting them under the enclosure's hardening (exit status 3 when a promise fails).
import { type CommandContext, fail, usage } from "@enclave/control-plane/cli/context.js";
import type { Outcome } from "@enclave/control-plane/cli/exit-codes.js";
import { HELP } from "@enclave/control-plane/cli/help.js";
import { say } from "@enclave/control-plane/cli/terminal-text.js";

export async function imagesCommand({ sub, rest, opts }: Pick<CommandContext, "sub" | "rest" | "opts">): Promise<Outcome> {
  if (!["build", "push", "inspect", "verify"].includes(sub)) usage(HELP.images ?? "");
  // Asked before any engine is reached: a usage error does not wait on Docker.
  if (sub === "push" && !opts.registry) usage("images push needs --registry HOST:PORT (such as 127.0.0.1:5000)");
  const { connectDocker } = await import("@enclave/control-plane/placement/docker-connection.js");
  const { ensureImages } = await import("./image-set.js");
  const { builtImages, describeImage, selectImages } = await import("./image-describe.js");
  const { consoleProgress, silentProgress } = await import("./progress.js");
  const docker = await connectDocker();
  const progress = consoleProgress();

  if (sub === "build") {
    const r = await ensureImages(docker, { agent: opts.agent ?? false, progress });
    for (const image of await builtImages(docker)) await describeImage(docker, image, progress);
    say(r.built.length ? `built ${r.built.join(", ")}` : `up to date: ${[r.base, r.runtime, r.agent].filter(Boolean).join(", ")}`);
    return "ok";
  }
  const built = await builtImages(docker);
  // verify also takes any local NAME:TAG (a candidate image before it is rolled out).
  const images =
    sub === "verify"
      ? rest.map((n) => (n.includes(":") ? { ref: n, inputs: [] } : (selectImages(built, [n])[0] ?? { ref: n, inputs: [] })))
      : selectImages(built, rest);
  if (sub === "verify" && !rest.length) images.push(...built);
  if (!images.length) fail("no enclave image is built here: run `make images` (or `enclave images build`) first");

  if (sub === "push") {
    const registry = opts.registry ?? usage("images push needs --registry HOST:PORT (such as 127.0.0.1:5000)");
    const { pushImage } = await import("./registry-push.js");
    for (const image of images) {
      const p = await pushImage(docker, image, registry, progress);
      say(`${image.ref}  ${p.reference.replace(/:[^:/]+$/, "")}@${p.digest}  (SBOM ${p.sbomReference})`);
    }
    return "ok";
  }

  if (sub === "inspect") {
    const { inspectText } = await import("./inspect-text.js");
    const described = [];
    for (const image of images) described.push(await describeImage(docker, image, opts.json ? silentProgress : progress));
    if (opts.json)
      say(
        JSON.stringify(
          described.map((d) => d.record),
          null,
          2,
        ),
      );
    else say(described.map((d) => inspectText(d)).join("\n\n"));
    return "ok";
  }

  // verify: testcontainers' reaper image comes from Docker Hub; verification removes what it starts.
  process.env.TESTCONTAINERS_RYUK_DISABLED ??= "true";
  const { verifyImage } = await import("./verify/verify-image.js");
  const { IMAGE_PROMISES } = await import("./verify/image-promises.js");
  const { splitReference } = await import("@enclave/control-plane/image-set/image-records.js");
  // With no NAME, the images enclosures run (the base image is only a build input).
  const targets = rest.length ? images : images.filter((i) => IMAGE_PROMISES[splitReference(i.ref).name]);
  const results = [];
  for (const image of targets) {
    if (!opts.json) say(`verifying ${image.ref} under the enclosure's hardening`);
    const v = await verifyImage(docker, image.ref);
    results.push(v);
    if (!opts.json) for (const c of v.checks) say(`  ${c.ok ? "ok  " : "FAIL"}  ${c.name}: ${c.detail}`);
  }
  if (opts.json) say(JSON.stringify(results, null, 2));
  const failed = results.filter((r) => !r.ok);
  if (!opts.json) say(failed.length ? `${failed.length} of ${results.length} images broke a promise` : `${results.length} verified`);
  return failed.length ? "checkFailed" : "ok";
}
