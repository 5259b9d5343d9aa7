// The hardening audit's gVisor half reads gVisor's kernel with a reader of Enclave's own (a static
// program in the read-only agent bundle), never with a tool of the image: an image whose `head` shows
// every capability set as empty cannot hide, from `enclave audit` under runsc, a process that holds a
// full capability set in a user namespace of its own.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import type { AuditCheck, EnclosureAudit } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { byoImage } from "../helpers/byo-images.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { TEST_RUNTIMES } from "../helpers/runtimes.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";
import { eventually } from "../helpers/wait.js";

function check(report: EnclosureAudit, item: string): AuditCheck {
  const c = report.checks.find((x) => x.item === item);
  if (!c) throw new Error(`no audit item ${item}`);
  return c;
}

describe.runIf(TEST_RUNTIMES.includes("runsc"))("the gVisor audit's reader, in an image with a lying head", () => {
  let fx: Fixture;

  beforeAll(async () => {
    const tag = await byoImage("lying-head");
    fx = await startFixture();
    await fx.client.createConversation("liar");
    await fx.client.startEnclosure("liar", { image: tag, runtime: "runsc" });
  }, 600_000);
  afterAll(async () => fx?.close());

  it("passes while nothing holds a capability", async () => {
    const report = await fx.client.auditEnclosure("liar");
    expect(check(report, "capabilities")).toMatchObject({ ok: true });
    await expectTranscript(check(report, "capabilities").outside, "transcripts/gvisor-audit-reader/capabilities-outside.txt", [
      [/\ball \d+ processes\b/g, "all <n> processes"],
    ]);
  });

  it("sees a process with a full capability set that the image's head would hide", async () => {
    const runId = (await fx.client.openRun("liar", { approvalPolicy: "never", resources: ["shell"] })).id;
    const holder = fx.client.callTool(runId, "exec", { command: "unshare -Ur sleep 15", timeout_seconds: 30 });
    holder.catch(() => undefined);
    const during = await eventually(
      async () => {
        const r = await fx.client.auditEnclosure("liar");
        return !check(r, "capabilities").ok && r;
      },
      "the audit to see the process with capabilities",
      12_000,
    );
    expect(check(during, "capabilities").outside).toContain("(sleep)");
    expect(during.passed).toBe(false);
    await expectTranscript(resultText(await holder), "transcripts/gvisor-audit-reader/holder-exit.txt");
  }, 60_000);
});
