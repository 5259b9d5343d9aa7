// Promise: an enclosure cannot fill the host's disk through its workspace. In copy mode /workspace is
// a volume of a set size (per enclosure, or the server's default): writing past it fails inside with
// ENOSPC, the host spends at most that much, and the egress audit shows the limit from outside and
// inside. Bind mode cannot be limited on this engine, so asking for a limit there is refused plainly.
import { execFileSync } from "node:child_process";
import { existsSync, statfsSync } from "node:fs";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import type { EnclosureAudit } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const LIMIT = 64 * 1024 ** 2;
let fx: Fixture;
let run: string;

const freeBytes = (path: string): number => {
  const s = statfsSync(path);
  return s.bavail * s.bsize;
};

beforeAll(async () => {
  fx = await startFixture();
  await fx.client.createConversation("disk-copy");
  await fx.client.startEnclosure("disk-copy", { workspaceMode: "copy", diskLimitBytes: LIMIT });
  run = (await fx.client.openRun("disk-copy", { approvalPolicy: "never" })).id;
});
afterAll(async () => fx?.close());

describe("workspace disk limit", () => {
  it("fails a write past the limit inside with ENOSPC, and the host disk does not pay for it", async () => {
    const hostFreeBefore = freeBytes(fx.dataDir);
    // 1 GiB of real blocks attempted against a 64 MiB volume.
    const r = await fx.client.callTool(run, "exec", { command: "dd if=/dev/zero of=fill.bin bs=1M count=1024 2>&1; echo exit=$?", timeout_seconds: 300 });
    const out = resultText(r);
    expect(out).toMatch(/No space left on device/);
    expect(out).toMatch(/exit=1/);
    const hostDrop = hostFreeBefore - freeBytes(fx.dataDir);
    // Others share this disk: the margin is wide, yet far below the 1 GiB the enclosure tried to write.
    expect(hostDrop, `host free space dropped by ${hostDrop} bytes`).toBeLessThan(LIMIT + 256 * 1024 ** 2);
    const size = Number(
      resultText(await fx.client.callTool(run, "exec", { command: "stat -c %s fill.bin" }))
        .trim()
        .split("\n")[0],
    );
    expect(size).toBeLessThanOrEqual(LIMIT);
    // The enclosure itself keeps working once space is freed.
    expect(resultText(await fx.client.callTool(run, "exec", { command: "rm fill.bin && echo ok > after.txt && cat after.txt" }))).toMatch(/^ok$/m);
  });

  it("shows the limit on the conversation and in the egress audit, outside and inside", async () => {
    expect((await fx.client.getConversation("disk-copy")).enclosure?.limits?.diskBytes).toBe(LIMIT);
    const report: EnclosureAudit = await fx.client.auditEnclosure("disk-copy");
    const disk = report.checks.find((c) => c.item === "workspace disk limit");
    expect(disk, report.checks.map((c) => c.item).join(", ")).toBeDefined();
    expect(disk?.ok, `${disk?.outside} / ${disk?.inside}`).toBe(true);
    // The check's three halves whole; the size the agent sees inside must be at most the limit to read as such.
    const atMostLimit = (n: string): string => (Number(n) <= LIMIT ? "<at most the limit>" : n);
    await expectTranscript(`expected: ${disk?.expected}\noutside: ${disk?.outside}\ninside: ${disk?.inside}\n`, "transcripts/disk-limit/audit-check.txt", [
      [/\benclave-disk-copy-\S+:/g, "enclave-disk-copy-<id>:"],
      [/\/dev\/loop\d+/g, "/dev/loop<n>"],
      [/\d+(?= bytes total)/g, atMostLimit],
      [/\d+(?= free)/g, "<n>"],
    ]);
    expect(report.passed).toBe(true);
  });

  it("refuses a disk limit in bind mode, saying why and what to use instead", async () => {
    await fx.client.createConversation("disk-bind");
    await expect(fx.client.startEnclosure("disk-bind", { diskLimitBytes: LIMIT })).rejects.toMatchObject({ code: "invalid_arguments" });
    expect((await fx.client.getConversation("disk-bind")).placement).toBe("host");
  });

  it("cleans up the volume, its loop device and image when stopped", async () => {
    const disk = fx.cp.conversations.get("disk-copy").enclosure?.disk;
    expect(disk?.loopDevice).toMatch(/^\/dev\/loop\d+$/);
    await fx.client.stopEnclosure("disk-copy");
    expect(existsSync(disk?.image ?? "")).toBe(false);
    expect(
      execFileSync("losetup", ["--list", "--noheadings", "--output", "BACK-FILE"], {
        encoding: "utf8",
        env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin:/sbin` },
      }),
    ).not.toContain(disk?.image ?? "?");
    await expect(new Docker().getVolume(disk?.volume ?? "").inspect()).rejects.toMatchObject({ statusCode: 404 });
  });
});
