// Image references are a tenant's words, and the control plane, the engine and dockerd must not act
// on them beyond a lookup. Through the real API (and the console, and a workspace's
// devcontainer.json) of a real `enclave serve` process with two token tenants and an operator, with
// canary listeners on loopback that record every connection:
//   - a name outside Docker's grammar (`../127.0.0.1:PORT/x`) is invalid_arguments before any engine
//     call: nothing is dialled, and the control plane keeps serving (it used to follow the engine's
//     301 to the named address and die on the refused connection);
//   - an engine client never follows a redirect, even when asked for such a path directly;
//   - a reference naming a registry (`127.0.0.1:PORT/x@sha256:…`) is only looked up, never pulled;
//   - a tenant starts only allowed images and its own builds: another tenant's build, an image on the
//     engine it may not name and one that does not exist answer exactly alike.
import { once } from "node:events";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ControlPlaneClient } from "@enclave/client/control-plane-client.js";
import { connectDocker } from "@enclave/control-plane/placement/docker-connection.js";
import { devcontainerTag } from "@enclave/control-plane/placement/enclosure-image.js";
import { addToken } from "@enclave/control-plane/tenants/token-file.js";
import type { AuditEvent } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { imageExists, imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import { byoImage } from "../helpers/byo-images.js";
import { type Outcome, outcome } from "../helpers/call-outcome.js";
import { type ControlPlaneProcess, startControlPlaneProcess, stopControlPlaneProcess } from "../helpers/control-plane-process.js";
import { until } from "../helpers/wait.js";

const docker = new Docker();
const HEX64 = "ab".repeat(32);

/** A TCP listener on loopback that records every connection (and its first line) and hangs up. */
interface Canary {
  port: number;
  /** "PEER_PORT FIRST_LINE" per connection, in the order they were accepted. */
  seen: string[];
  close(): Promise<void>;
}

async function canary(): Promise<Canary> {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    const i = seen.push(`${socket.remotePort} (no data)`) - 1;
    socket.on("error", () => undefined);
    socket.once("data", (d: Buffer) => {
      seen[i] = `${socket.remotePort} ${d.toString("latin1").split("\r\n")[0] ?? ""}`;
      socket.destroy();
    });
    socket.setTimeout(2_000, () => socket.destroy());
    socket.once("close", () => sockets.delete(socket));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as { port: number }).port;
  return {
    port,
    seen,
    close: async () => {
      for (const s of sockets) s.destroy();
      server.close();
      await once(server, "close");
    },
  };
}

/**
 * Every connection any canary saw, once each canary has accepted a marker connection of ours: a
 * connection begun before the marker is accepted before it (the listen queue is first in, first
 * out), so one the control plane or the engine began during a call is counted, whenever it lands.
 */
async function dialled(): Promise<string[]> {
  const all: string[] = [];
  for (const c of canaries) {
    const marker = connect(c.port, "127.0.0.1");
    marker.on("error", () => undefined);
    await once(marker, "connect");
    const mine = `${marker.localPort} MARKER`;
    marker.write("MARKER\r\n");
    await until(() => c.seen.includes(mine), "the canary to read the marker", 5_000);
    marker.destroy();
    c.seen.splice(c.seen.indexOf(mine), 1);
    all.push(...c.seen.map((s) => `127.0.0.1:${c.port} from ${s}`));
  }
  return all;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const port = (server.address() as { port: number }).port;
  server.close();
  await once(server, "close");
  return port;
}

let dir: string;
let proc: ControlPlaneProcess;
let exitedWith: number | NodeJS.Signals | undefined;
let consoleBase: string;
const tokens = { acme: "", globex: "", ops: "" };
const clients: ControlPlaneClient[] = [];
let acme: ControlPlaneClient;
let globex: ControlPlaneClient;
let ops: ControlPlaneClient;
let canaries: Canary[] = [];
let pythonImage: string;

function client(token: string): ControlPlaneClient {
  const c = new ControlPlaneClient(proc.client.address, { token });
  clients.push(c);
  return c;
}

/** The control plane still answers, and its process never exited. */
async function expectServing(): Promise<void> {
  expect(exitedWith, `the control plane exited; stderr:\n${proc.stderr().slice(-2_000)}`).toBeUndefined();
  expect((await outcome(ops.listConversations())).code).toBe("ok");
}

/** What a tenant learns from a refusal, with the image it named written as <IMAGE>. */
function seenAs(o: Outcome, image: string): Outcome {
  return { ...o, message: o.message.split(image).join("<IMAGE>") };
}

async function writeDevcontainer(c: ControlPlaneClient, conv: string, image: string): Promise<void> {
  const run = await c.openRun(conv, { approvalPolicy: "never" });
  const w = await c.callTool(run.id, "write", { path: ".devcontainer.json", content: JSON.stringify({ image }) });
  expect(w.isError).toBe(false);
  await c.closeRun(run.id);
}

/** The hostile names a tenant sent: paths that leave the engine's /images/ route, URL syntax, bad case and length. */
function hostileReferences(port: number): string[] {
  return [
    "../127.0.0.1:1/x",
    `../127.0.0.1:${port}/attacker/path`,
    `x/../../127.0.0.1:${port}/y`,
    `x/../../../127.0.0.1:${port}/y:latest`,
    `..%2F127.0.0.1:${port}%2Fx`,
    `127.0.0.1:${port}/x?../../y`,
    `127.0.0.1:${port}/x#/../y`,
    "Upper/../x",
    "UPPERCASE",
    "a".repeat(300),
  ];
}

beforeAll(async () => {
  pythonImage = await byoImage("python-debian");
  dir = mkdtempSync(join(tmpdir(), "enclave-imageref-"));
  const tokensFile = join(dir, "tokens.json");
  tokens.acme = addToken(tokensFile, "acme").token;
  tokens.globex = addToken(tokensFile, "globex").token;
  tokens.ops = addToken(tokensFile, "ops", { operator: true }).token;
  canaries = await Promise.all([canary(), canary(), canary()]);
  const consolePort = await freePort();
  consoleBase = `http://127.0.0.1:${consolePort}`;
  mkdirSync(join(dir, "data"));
  proc = await startControlPlaneProcess(join(dir, "data"), {
    ENCLAVE_TOKENS_FILE: tokensFile,
    ENCLAVE_CONSOLE_LISTEN: `127.0.0.1:${consolePort}`,
    // One image every tenant may start besides Enclave's own.
    ENCLAVE_ALLOWED_IMAGES: pythonImage,
  });
  void proc.exited.then((v) => (exitedWith = v));
  acme = client(tokens.acme);
  globex = client(tokens.globex);
  ops = client(tokens.ops);
}, 900_000);

afterAll(async () => {
  for (const c of [acme, globex]) {
    for (const conv of (await c?.listConversations().catch(() => [])) ?? []) {
      if (conv.enclosure) await c.stopEnclosure(conv.id).catch(() => undefined);
      await c.deleteConversation(conv.id).catch(() => undefined);
    }
  }
  for (const c of clients) c.close();
  if (proc && exitedWith === undefined) await stopControlPlaneProcess(proc, "SIGTERM").catch(() => undefined);
  for (const c of canaries) await c.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 120_000);

describe("image references a tenant names", () => {
  it("a name outside Docker's grammar is invalid_arguments from the API, for a tenant and an operator alike; nothing is dialled and the service keeps serving", async () => {
    const port = canaries[0]?.port ?? 0;
    for (const [who, c] of [
      ["globex", globex],
      ["ops", ops],
    ] as const) {
      const conv = (await c.createConversation(`grammar-${who}`)).id;
      for (const image of hostileReferences(port)) {
        const o = await outcome(c.startEnclosure(conv, { image }));
        expect(o.code, `${who}: ${image.slice(0, 60)}: ${o.message}`).toBe("invalid_arguments");
        expect(await dialled(), `after ${image.slice(0, 60)}`).toEqual([]);
      }
      expect((await c.getConversation(conv)).enclosure).toBeUndefined();
    }
    await expectServing();
  }, 120_000);

  it("the console's form: the same names are refused as a bad argument (400)", async () => {
    const conv = (await globex.createConversation("grammar-console")).id;
    const port = canaries[1]?.port ?? 0;
    for (const image of hostileReferences(port)) {
      const r = await fetch(`${consoleBase}/conversations/globex.${conv}/enclosure/start`, {
        method: "POST",
        headers: { authorization: `Bearer ${tokens.globex}`, accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ image }).toString(),
      });
      expect(r.status, `${image.slice(0, 60)}: ${await r.text()}`).toBe(400);
    }
    expect(await dialled()).toEqual([]);
    await expectServing();
  }, 120_000);

  it("a workspace's devcontainer.json naming such an image is invalid_arguments too", async () => {
    const conv = (await globex.createConversation("grammar-devcontainer")).id;
    const port = canaries[2]?.port ?? 0;
    for (const image of [`x/../../127.0.0.1:${port}/y`, `../127.0.0.1:${port}/attacker/path`, "../127.0.0.1:1/x"]) {
      await writeDevcontainer(globex, conv, image);
      const o = await outcome(globex.startEnclosure(conv, { devcontainer: true }));
      expect(o.code, `${image}: ${o.message}`).toBe("invalid_arguments");
    }
    expect(await dialled()).toEqual([]);
    await expectServing();
  }, 120_000);

  it("an engine client of the control plane never follows the engine's redirect", async () => {
    const engine = await connectDocker();
    const port = canaries[0]?.port ?? 0;
    // dockerd answers 301 (to /127.0.0.1:PORT/attacker/path/json) for a path with `..` in it.
    await expect(engine.getImage(`../127.0.0.1:${port}/attacker/path`).inspect()).rejects.toBeInstanceOf(Error);
    await expect(engine.getImage(`../127.0.0.1:1/x`).inspect()).rejects.toBeInstanceOf(Error);
    expect(await dialled()).toEqual([]);
  });

  it("a reference naming a registry is only looked up, never pulled: not by a tenant, an operator, nor a workspace's file", async () => {
    const port = canaries[1]?.port ?? 0;
    const named = [`127.0.0.1:${port}/x@sha256:${HEX64}`, `127.0.0.1:${port}/x:latest@sha256:${HEX64}`, `localhost:${port}/y@sha256:${HEX64}`];
    for (const [who, c] of [
      ["globex", globex],
      ["ops", ops],
    ] as const) {
      const conv = (await c.createConversation(`pull-${who}`)).id;
      for (const image of named) {
        const o = await outcome(c.startEnclosure(conv, { image }));
        expect(o.code, `${who}: ${image}: ${o.message}`).toBe("image_unusable");
      }
      await writeDevcontainer(c, conv, named[0] ?? "");
      expect((await outcome(c.startEnclosure(conv, { devcontainer: true }))).code).toBe("image_unusable");
    }
    expect(await dialled()).toEqual([]);
    await expectServing();
  }, 180_000);
});

describe("a tenant runs only allowed images and its own builds", () => {
  it("another tenant's build, an image on the engine it may not name and a missing one answer exactly alike", async () => {
    const base = imageTags().base;
    expect(await imageExists(docker, base), `${base} is built (make images)`).toBe(true);
    // acme's dev-container build, under the tag the control plane gives it (a build's result, made
    // here by tagging, so the test does not depend on whether this tenant may build).
    const acmeConv = (await acme.createConversation("app")).id;
    const acmeBuild = devcontainerTag(`acme.${acmeConv}`);
    const [repo = "", tag = ""] = acmeBuild.split(":");
    await docker.getImage(pythonImage).tag({ repo, tag });
    try {
      const conv = (await globex.createConversation("other")).id;
      const madeUp = `enclave-devcontainer:${"0".repeat(16)}`;
      const answers: Record<string, Outcome> = {};
      for (const image of [acmeBuild, madeUp, base, "enclave-test-no-such-image:1"]) {
        answers[image] = seenAs(await outcome(globex.startEnclosure(conv, { image })), image);
      }
      const missing = answers["enclave-test-no-such-image:1"];
      expect(missing?.code).toBe("image_unusable");
      for (const [image, answer] of Object.entries(answers)) expect(answer, image).toEqual(missing);
      // From a workspace file, the same.
      const byFile: Outcome[] = [];
      for (const image of [acmeBuild, madeUp]) {
        await writeDevcontainer(globex, conv, image);
        byFile.push(seenAs(await outcome(globex.startEnclosure(conv, { devcontainer: true })), image));
      }
      expect(byFile[0]).toEqual(byFile[1]);
      expect(byFile[0]?.code).toBe("image_unusable");
      expect((await globex.getConversation(conv)).enclosure).toBeUndefined();
      // The operator reads why in the audit log (recorded at most once an interval per tenant).
      const audit: AuditEvent[] = [];
      await ops.subscribeAudit({ includeHistory: true, historyOnly: true }, (e) => audit.push(e)).done;
      expect(audit.filter((e) => e.kind === "image_refused").map((e) => [e.tenant, e.outcome])).toContainEqual(["globex", "refused:image_unusable"]);

      // What each may start: acme its own build, globex the operator's allowed image.
      const own = await acme.startEnclosure(acmeConv, { image: acmeBuild });
      expect(own.enclosure?.image).toBe(acmeBuild);
      await acme.stopEnclosure(acmeConv);
      const allowed = await globex.startEnclosure(conv, { image: pythonImage });
      expect(allowed.enclosure?.image).toBe(pythonImage);
      await globex.stopEnclosure(conv);
    } finally {
      await docker
        .getImage(acmeBuild)
        .remove({ noprune: true })
        .catch(() => undefined);
    }
    await expectServing();
  }, 300_000);
});
