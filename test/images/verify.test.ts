// Image verification with testcontainers: `enclave images verify` starts the runtime image under the
// enclosure's hardening and every promise holds (exit 0); an image that breaks promises (root user,
// a setuid program, a language server that does not answer) is reported check by check, and the
// command exits 3 on a failed check so a pipeline can gate on it. Nothing it started is left behind.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { connectDocker } from "@enclave/control-plane/placement/docker-connection.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { dockerBuild } from "@enclave/images/docker-build.js";
import { imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import { silentProgress } from "@enclave/images/progress.js";
import { VERIFY_RUN_LABEL, verifyImage } from "@enclave/images/verify/verify-image.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const run = promisify(execFile);
const enclave = join(repoRoot, "bin", "enclave");
const broken = `enclave-runtime:verify-broken-${process.pid}`;

describe("images verify", () => {
  afterAll(async () => {
    const docker = await connectDocker();
    await docker
      .getImage(broken)
      .remove({ force: true })
      .catch(() => undefined);
  });

  it("the runtime image keeps every promise under the enclosure's hardening (exit status 0)", async () => {
    const { stdout } = await run(enclave, ["images", "verify", "enclave-runtime", "--json"], {
      env: { ...process.env, TESTCONTAINERS_RYUK_DISABLED: "true" },
      maxBuffer: 16 * 1024 ** 2,
      timeout: 300_000,
    });
    const [result] = JSON.parse(stdout) as Array<{ image: string; ok: boolean; checks: Array<{ name: string; ok: boolean; detail: string }> }>;
    expect(result?.image).toBe(imageTags().runtime);
    const failed = result?.checks.filter((c) => !c.ok) ?? [];
    expect(failed).toEqual([]);
    const names = result?.checks.map((c) => c.name) ?? [];
    for (const id of ["pyright", "pylsp", "typescript", "clangd", "gopls", "bash"]) expect(names).toContain(`language server ${id} answers initialize`);
    for (const id of ["debugpy", "lldb", "delve"]) expect(names).toContain(`debug adapter ${id} answers initialize`);
    expect(names).toEqual(expect.arrayContaining(["no setuid or setgid programs", "runs as a non-root user", "node runs the agent"]));
    expect(result?.checks.find((c) => c.name === "node runs the agent")?.detail).toMatch(/uid 1000, placement enclosure/);
  });

  it("an image that breaks promises fails those checks, names what broke, and leaves no container", async () => {
    const docker = await connectDocker();
    const context = mkdtempSync(join(tmpdir(), "enclave-broken-image-"));
    try {
      // A setuid program, a pylsp on PATH that exits at once, and root as the image's user.
      writeFileSync(
        join(context, "Dockerfile"),
        [
          "ARG RUNTIME",
          "FROM ${RUNTIME}",
          "USER 0",
          "RUN chmod u+s /usr/bin/find && printf '#!/bin/sh\\nexit 3\\n' > /usr/local/bin/pylsp && chmod 755 /usr/local/bin/pylsp",
          "",
        ].join("\n"),
      );
      await dockerBuild(docker, { tag: broken, folders: [[context, ""]], buildArgs: { RUNTIME: imageTags().runtime }, labels: {} }, silentProgress);
    } finally {
      rmSync(context, { recursive: true, force: true });
    }
    // A narrower promise set keeps this quick.
    const v = await verifyImage(docker, broken, {
      languageServers: ["pylsp", "bash"],
      debugAdapters: ["debugpy"],
      pythonModules: ["pandas"],
      nodeMajorAtLeast: 18,
    });
    expect(v.ok).toBe(false);
    const byName = Object.fromEntries(v.checks.map((c) => [c.name, c]));
    expect(byName["image user is not root"]).toMatchObject({ ok: false, detail: "USER 0" });
    expect(byName["no setuid or setgid programs"]).toMatchObject({ ok: false, detail: "/usr/bin/find" });
    expect(byName["language server pylsp answers initialize"]?.ok).toBe(false);
    expect(byName["language server pylsp answers initialize"]?.detail).toMatch(/pylsp exited \(3\) before answering initialize/);
    // The hardening still runs it as the enclosure's user, and the rest of the image still works.
    expect(byName["runs as a non-root user"]?.ok).toBe(true);
    expect(byName["language server bash answers initialize"]?.ok).toBe(true);
    expect(byName["debug adapter debugpy answers initialize"]?.ok).toBe(true);
    expect(byName["node runs the agent"]?.ok).toBe(true);
    const left = await docker.listContainers({ all: true, filters: { label: [VERIFY_RUN_LABEL] } });
    expect(left.filter((c) => c.Image === broken)).toEqual([]);
  });

  it("the command exits 3 when a check fails, so a pipeline can gate on it", async () => {
    const missing = `enclave-runtime:verify-missing-${process.pid}`;
    const failure = await run(enclave, ["images", "verify", missing], { env: { ...process.env, TESTCONTAINERS_RYUK_DISABLED: "true" }, timeout: 60_000 }).then(
      () => ({ code: 0, stdout: "" }),
      (err: { code?: number; stdout?: string }) => ({ code: err.code, stdout: err.stdout ?? "" }),
    );
    expect(failure.code).toBe(3);
    await expectTranscript(failure.stdout.split(missing).join("<missing image>"), "transcripts/verify/missing-image.txt");
  });
});
