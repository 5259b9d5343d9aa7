// Dart through an image that carries the SDK. No Dart SDK can be installed here, so the image (built
// FROM the enclave base, the SDK laid out as the official `dart` image has it) holds a stand-in
// `dart` that records how it was called. What this proves is the path up to the binary: the server
// and adapter tables pick `dart` for a .dart file under a pubspec.yaml, resolve it on the image's
// PATH, and start it as the tables say, for lsp, diagnostics "*" and debug. A Dart language server
// answering through the supervisor needs the real SDK, which this machine cannot have.
import { writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resultText } from "@enclave/client/control-plane-client.js";
import type { ToolResult } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { type Mask, expectTranscript } from "@enclave/test-kit/transcript.js";
import { byoImage } from "../helpers/byo-images.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";

const LOG = "/tmp/dart-stand-in.log";

describe("an enclosure from an image that carries a (stand-in) Dart SDK", () => {
  let fx: Fixture;
  let runId: string;
  const id = "byo-dart-sdk";

  beforeAll(async () => {
    const tag = await byoImage("dart-sdk-stand-in");
    fx = await startFixture();
    const workspace = (await fx.client.createConversation(id)).workspacePath;
    writeFileSync(join(workspace, "pubspec.yaml"), "name: hello\nenvironment:\n  sdk: ^3.0.0\n");
    mkdirSync(join(workspace, "bin"));
    writeFileSync(join(workspace, "bin", "hello.dart"), "void main() {\n  print('hello');\n}\n");
    await fx.client.startEnclosure(id, { image: tag });
    runId = (await fx.client.openRun(id, { approvalPolicy: "never" })).id;
  }, 600_000);
  afterAll(async () => fx?.close());

  async function call(tool: string, args: Record<string, unknown>): Promise<ToolResult> {
    return fx.client.callTool(runId, tool, args);
  }
  async function ok(tool: string, args: Record<string, unknown>): Promise<string> {
    const r = await call(tool, args);
    expect(r.isError, resultText(r)).toBe(false);
    return resultText(r);
  }
  /** The stand-in's record since the last look: "<working folder> | <arguments>" per call. */
  async function calls(): Promise<string[]> {
    const out = await ok("exec", { command: `cat ${LOG} 2>/dev/null; rm -f ${LOG}` });
    return out.split("\n").filter((l) => l.includes(" | "));
  }

  it("lists the Dart adapter as usable: pubspec.yaml at the root and `dart` on the image's PATH", async () => {
    const adapters = await ok("debug", { op: "adapters" });
    expect(adapters.split("\n")).toContain("dart: usable [markers: pubspec.yaml]");
    const status = (await ok("lsp", { action: "status" })).split("\n").filter((l) => /\bdart\b/.test(l));
    await expectTranscript(status.join("\n"), "transcripts/dart-byo-sdk/lsp-status.txt");
    // Available only once `dart --version` answered: the probe that tells a real binary from a stub.
    expect(await calls()).toEqual(["/workspace | --version"]);
  });

  it("starts `dart language-server --protocol=lsp` for a .dart file", async () => {
    const r = await call("lsp", { action: "diagnostics", file: "bin/hello.dart" });
    // The stand-in is no server: it exits, and lsp says the server could not start, not that `dart` is missing.
    expect(r.isError).toBe(true);
    expect(resultText(r)).not.toMatch(/install the Dart SDK/);
    await expectTranscript(`${r.errorCode}: ${resultText(r)}`, "transcripts/dart-byo-sdk/lsp-server-exited.txt");
    expect(await calls()).toEqual(["/workspace | language-server --protocol=lsp"]);
  });

  it('runs `dart analyze` at the root for diagnostics "*"', async () => {
    const out = await ok("lsp", { action: "diagnostics", file: "*" });
    await expectTranscript(out, "transcripts/dart-byo-sdk/analyze.txt");
    expect(await calls()).toEqual(["/workspace | analyze"]);
  });

  it("starts `dart debug_adapter` to launch a .dart program", async () => {
    const r = await call("debug", { op: "launch", program: "bin/hello.dart" });
    expect(r.isError).toBe(true);
    expect(resultText(r)).not.toMatch(/install the Dart SDK/);
    // Whether the exit, the closed pipe or a failed write is seen first (and so whether its stderr is
    // quoted) is a race: what follows `initialize` is how it ended.
    const ended: Mask = [/(`initialize`) \(.*$/s, "$1 (<how it ended>)"];
    await expectTranscript(`${r.errorCode}: ${resultText(r)}`, "transcripts/dart-byo-sdk/debug-adapter-exited.txt", [ended]);
    expect(await calls()).toEqual(["/workspace | debug_adapter"]);
  });

  it("says plainly where there is no SDK (host placement here), with the install hint", async () => {
    const host = "host-no-dart";
    const workspace = (await fx.client.createConversation(host)).workspacePath;
    writeFileSync(join(workspace, "pubspec.yaml"), "name: hello\n");
    writeFileSync(join(workspace, "hello.dart"), "void main() {}\n");
    const run = (await fx.client.openRun(host, { approvalPolicy: "never" })).id;
    const lsp = await fx.client.callTool(run, "lsp", { action: "diagnostics", file: "hello.dart" });
    const debug = await fx.client.callTool(run, "debug", { op: "launch", program: "hello.dart" });
    const answers = [lsp, debug].map((r) => `${r.errorCode}: ${resultText(r)}`);
    for (const a of answers) expect(a).toContain("install the Dart SDK");
    await expectTranscript(answers.join("\n"), "transcripts/dart-byo-sdk/host-without-sdk.txt");
  });
});
