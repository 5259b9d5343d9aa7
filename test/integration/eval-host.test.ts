// eval on host placement: the kernels run as children of the conversation's host agent.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "../../control-plane/src/client/control-plane-client.js";
import { type EvalPlace, evalCases, evalCell, hostPython } from "../helpers/eval-cases.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";

let fx: Fixture;
let place: EvalPlace;

beforeAll(async () => {
  // The host agents inherit this: the kernel's base interpreter is the Python with the data stack.
  process.env.ENCLAVE_PYTHON = hostPython();
  fx = await startFixture();
  const conv = await fx.client.createConversation("evalhost", mkdtempSync(join(tmpdir(), "enclave-eval-ws-")));
  place = { fx, conversationId: conv.id, runId: (await fx.client.openRun(conv.id)).id, workspace: conv.workspacePath };
  expect(conv.placement).toBe("host");
});
afterAll(async () => fx?.close());

describe("eval on host placement", () => {
  evalCases(() => place);

  it("is registered only with a kernel factory, and absent from plan surfaces", async () => {
    const names = async (opts: { surface?: string; resources?: string[] }) =>
      (await fx.client.listTools((await fx.client.openRun("evalhost", opts)).id)).tools.map((t) => t.name);
    expect(await names({})).toContain("eval");
    expect(await names({ resources: ["workspace", "shell"] })).not.toContain("eval");
    expect(await names({ surface: "plan" })).not.toContain("eval");
    const tool = (await fx.client.listTools(place.runId)).tools.find((t) => t.name === "eval");
    expect(tool?.tier).toBe("exec");
    expect(tool?.parallelSafe).toBe(false);
  });

  it("validates its arguments", async () => {
    const short = await fx.client.callTool(place.runId, "eval", { code: "1", description: "too short" });
    expect(short.errorCode).toBe("invalid_arguments");
    expect(resultText(short)).toMatch(/description.*5 to 10 words/);
    const empty = await evalCell(place, { code: "  " });
    expect(resultText(empty)).toMatch(/code.*is empty/);
    const lang = await evalCell(place, { code: "1", language: "ruby" });
    expect(lang.errorCode).toBe("invalid_arguments");
    const wider = await fx.client.openRun("evalhost", { surface: "default" });
    void wider;
  });

  it("keeps the kernel across calls of the conversation, and never starts an enclosure", async () => {
    await evalCell(place, { code: "marker = 'kept'" });
    const other = (await fx.client.openRun("evalhost")).id;
    const r = await evalCell(place, { code: "marker" }, other);
    expect(resultText(r)).toBe("'kept'");
    expect((await fx.client.getConversation("evalhost")).placement).toBe("host");
  });
});
