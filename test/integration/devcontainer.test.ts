// A workspace's dev container as an enclosure, on the real engine: the image form and the build form
// (a Dockerfile built by the engine with no network), containerUser, remoteEnv and postCreateCommand
// observed inside, fields that would weaken the hardening left out, and the failures each with its code.
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import Docker from "dockerode";
import { NODE_RUNTIME } from "@enclave/control-plane/placement/node-runtime.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ControlPlaneCallError, resultText } from "@enclave/client/control-plane-client.js";
import { LABELS } from "@enclave/control-plane/model/labels.js";
import { repoRoot } from "@enclave/control-plane/repo-paths.js";
import { byoImage } from "../helpers/byo-images.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { type Mask, expectTranscript } from "@enclave/test-kit/transcript.js";

/** Containers, image ids and tags, uids and the enclosure's uid differ per run. */
const START_MASKS: Mask[] = [
  [/\b[0-9a-f]{12,64}\b/g, "<id>"],
  [/\b(uid|user) \d+(?::\d+)?/g, "$1 <uid>"],
  // The Node Enclave injects moves with its releases (checked as data where it matters).
  [new RegExp(`\\bNode ${NODE_RUNTIME.version.replace(/\./g, "\\.")}\\b`, "g"), "Node <version>"],
];

const docker = new Docker();
let fx: Fixture;
let scratchImage: string;
let pythonImage: string;

beforeAll(async () => {
  [scratchImage, pythonImage] = await Promise.all([byoImage("scratch-glibc"), byoImage("python-debian")]);
  fx = await startFixture();
}, 900_000);
afterAll(async () => fx?.close());

function devcontainer(workspace: string, config: string, files: Record<string, string> = {}): void {
  mkdirSync(join(workspace, ".devcontainer"), { recursive: true });
  writeFileSync(join(workspace, ".devcontainer", "devcontainer.json"), config);
  for (const [name, body] of Object.entries(files)) writeFileSync(join(workspace, ".devcontainer", name), body);
}

async function startFails(id: string): Promise<ControlPlaneCallError> {
  const err = await fx.client.startEnclosure(id, { devcontainer: true }).then(
    () => undefined,
    (e: unknown) => e as ControlPlaneCallError,
  );
  expect(err, "the start should have failed").toBeDefined();
  return err as ControlPlaneCallError;
}

async function containersOf(id: string): Promise<number> {
  return (await docker.listContainers({ all: true, filters: { label: [`${LABELS.conversation}=${id}`] } })).length;
}

async function exec(id: string, command: string): Promise<string> {
  const run = await fx.client.openRun(id, { approvalPolicy: "never" });
  const r = await fx.client.callTool(run.id, "exec", { command });
  expect(r.isError, resultText(r)).toBe(false);
  return resultText(r);
}

describe("a dev container as an enclosure", () => {
  it("image form: containerUser, remoteEnv and postCreateCommand inside; runArgs and mounts not honoured", async () => {
    const id = "devc-image";
    const ws = (await fx.client.createConversation(id)).workspacePath;
    devcontainer(
      ws,
      `{
        // A user's dev container: JSONC, as VS Code writes it.
        "name": "scratch",
        "image": "${scratchImage}",
        "containerUser": "dev",
        "runArgs": ["--privileged", "--network=host"],
        "mounts": ["source=/,target=/host,type=bind"],
        "remoteEnv": { "GREETING": "hello from \${containerWorkspaceFolder}", "PATH": "\${containerEnv:PATH}:/workspace/bin", },
        "postCreateCommand": "id -u > /workspace/post-create.txt && echo \\"$GREETING\\" >> /workspace/post-create.txt",
      }`,
    );
    const conv = await fx.client.startEnclosure(id, { devcontainer: true });
    expect(conv.placement).toBe("enclosure");
    expect(conv.enclosure?.image).toBe(scratchImage);
    expect(conv.enclosure?.relaxations).toEqual([]);
    const notes = conv.enclosure?.notes.join("\n") ?? "";
    // What the start decided, as the conversation shows it: fields not honoured, the Node injected.
    expect(notes).toContain(NODE_RUNTIME.version);
    await expectTranscript(notes, "transcripts/devcontainer/notes.txt", START_MASKS);
    // The enclosure runs as its own uid; the container user's group (dev, 2345) is kept as a supplementary one.
    const info = await docker.getContainer(conv.enclosure?.containerId ?? "").inspect();
    const own = info.Config.User?.split(":")[0] ?? "";
    expect(own).not.toBe("2345");
    expect(info.HostConfig.GroupAdd).toEqual(["2345"]);
    // postCreateCommand ran inside, as the enclosure's user, with remoteEnv in its environment.
    expect(readFileSync(join(ws, "post-create.txt"), "utf8")).toBe(`${own}\nhello from /workspace\n`);
    expect(await exec(id, 'echo "$GREETING|$PATH"; id -u; id -G')).toMatch(
      new RegExp(`^hello from /workspace\\|/opt/tools/bin:/usr/bin:/workspace/bin\n${own}\n${own} 2345$`, "m"),
    );
    expect(info.HostConfig.Privileged).toBe(false);
    expect(info.HostConfig.NetworkMode).toBe("none");
    expect(info.HostConfig.CapDrop).toEqual(["ALL"]);
    expect((info.Mounts ?? []).map((m) => m.Destination)).not.toContain("/host");
    const report = await fx.client.auditEnclosure(id);
    for (const c of report.checks) expect(c.ok, `${c.item}: outside ${c.outside}; inside ${c.inside}`).toBe(true);
    await fx.client.stopEnclosure(id);
  });

  it("build form: the engine builds the Dockerfile from its context, with build args and no network", async () => {
    const id = "devc-build";
    const ws = (await fx.client.createConversation(id)).workspacePath;
    writeFileSync(join(ws, "tool.py"), "print('tool', 6 * 7)\n");
    devcontainer(
      ws,
      JSON.stringify({
        build: { dockerfile: "Dockerfile", context: "..", args: { FLAVOUR: "plain" } },
        remoteEnv: { FLAVOUR_SEEN: "${containerEnv:FLAVOUR}" },
        postCreateCommand: { copy: ["/bin/sh", "-c", "cp /opt/built-marker /workspace/built.txt"], whoami: "id -u >> /workspace/built.txt" },
      }),
      {
        Dockerfile: `FROM ${pythonImage}\nARG FLAVOUR\nENV FLAVOUR=$FLAVOUR\nCOPY tool.py /opt/tool.py\nRUN python3 /opt/tool.py > /opt/built-marker\n`,
      },
    );
    const conv = await fx.client.startEnclosure(id, { devcontainer: true });
    expect(conv.placement).toBe("enclosure");
    expect(conv.enclosure?.image).toMatch(/^enclave-devcontainer:/);
    // postCreateCommand ran as the enclosure's own uid (the image's user is root: the default, no group kept).
    const own = (await docker.getContainer(conv.enclosure?.containerId ?? "").inspect()).Config.User?.split(":")[0];
    expect(own).not.toBe("1000");
    expect(readFileSync(join(ws, "built.txt"), "utf8")).toBe(`tool 42\n${own}\n`);
    expect(await exec(id, 'echo "$FLAVOUR_SEEN"')).toMatch(/^plain$/m);
    await fx.client.stopEnclosure(id);
    // The image built for it goes with the conversation.
    const built = { filters: { label: [`org.enclave.devcontainer=${id}`] } };
    expect(await docker.listImages(built)).toHaveLength(1);
    await fx.client.deleteConversation(id);
    expect(await docker.listImages(built)).toHaveLength(0);
  });

  it("a build that reaches for the network fails with devcontainer_build_failed, and nothing is left", async () => {
    const id = "devc-netbuild";
    const ws = (await fx.client.createConversation(id)).workspacePath;
    devcontainer(ws, JSON.stringify({ build: { dockerfile: "Dockerfile" } }), {
      Dockerfile: `FROM ${pythonImage}\nRUN python3 -c "import socket; socket.create_connection(('1.1.1.1', 80), timeout=5)"\n`,
    });
    const err = await startFails(id);
    expect(err.code).toBe("devcontainer_build_failed");
    expect(err.message).toMatch(/Network is unreachable|unreachable/i);
    expect(await containersOf(id)).toBe(0);
  });

  it("a failing postCreateCommand fails the start with its output, and the enclosure is removed", async () => {
    const id = "devc-postfail";
    const ws = (await fx.client.createConversation(id)).workspacePath;
    devcontainer(ws, JSON.stringify({ image: scratchImage, postCreateCommand: "echo trying; exit 3" }));
    const err = await startFails(id);
    expect(err.code).toBe("devcontainer_post_create_failed");
    expect(err.message).toContain("trying");
    await expectTranscript(err.message, "transcripts/devcontainer/post-create-failed.txt", START_MASKS);
    expect(await containersOf(id)).toBe(0);
    expect((await fx.client.getConversation(id)).placement).toBe("host");
  });

  it("a containerUser that is root, or unknown to the image, is refused", async () => {
    const root = "devc-root";
    devcontainer((await fx.client.createConversation(root)).workspacePath, JSON.stringify({ image: scratchImage, containerUser: "root" }));
    expect((await startFails(root)).code).toBe("devcontainer_invalid");
    const nobody = "devc-nobody";
    devcontainer((await fx.client.createConversation(nobody)).workspacePath, JSON.stringify({ image: scratchImage, containerUser: "ghost" }));
    const err = await startFails(nobody);
    expect(err.code).toBe("devcontainer_invalid");
    // The same code as the root refusal above: the answer says which.
    await expectTranscript(err.message, "transcripts/devcontainer/unknown-user.txt", START_MASKS);
  });

  it("an image the engine does not have is image_unusable, said plainly (nothing is pulled)", async () => {
    const id = "devc-missing";
    devcontainer((await fx.client.createConversation(id)).workspacePath, JSON.stringify({ image: "enclave-test-no-such-image:1" }));
    const err = await startFails(id);
    expect(err.code).toBe("image_unusable");
    // image_unusable also covers an image that cannot run the agent: the answer says this one is missing.
    await expectTranscript(err.message, "transcripts/devcontainer/image-missing.txt", START_MASKS);
  });

  it("the CLI starts either with --image or --devcontainer, and prints the start's notes", async () => {
    const cli = (args: string[]) => promisify(execFile)(join(repoRoot, "bin", "enclave"), [...args, "--address", fx.client.address], { timeout: 300_000 });
    const byImage = "devc-cli-image";
    await fx.client.createConversation(byImage);
    const a = await cli(["enclosure", "start", byImage, "--image", scratchImage]);
    expect(a.stdout).toContain(scratchImage);
    expect(a.stdout).toContain(NODE_RUNTIME.version);
    await expectTranscript(a.stdout, "transcripts/devcontainer/cli-start-image.txt", START_MASKS);
    await cli(["enclosure", "stop", byImage]);
    const byDevc = "devc-cli-devc";
    devcontainer((await fx.client.createConversation(byDevc)).workspacePath, JSON.stringify({ image: scratchImage, privileged: true }));
    const b = await cli(["enclosure", "start", byDevc, "--devcontainer"]);
    await expectTranscript(b.stdout, "transcripts/devcontainer/cli-start-devcontainer.txt", START_MASKS);
    await cli(["enclosure", "stop", byDevc]);
  });
});
