// Handing a workspace to another account while code churns it: entries that vanish mid-walk are no
// failure, and a link is given itself, never the file it points at.
import { type ChildProcess, spawn } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { giveTree } from "./give-tree.js";

const UID = 4242;
const GID = 4243;
const dirs: string[] = [];
let churn: ChildProcess | undefined;
/** Stops the churning shell and whatever it is running right now, and waits until they are gone. */
async function stopChurn(): Promise<void> {
  const c = churn;
  churn = undefined;
  if (!c?.pid || c.exitCode !== null || c.signalCode !== null) return;
  const gone = new Promise((resolve) => c.once("close", resolve));
  process.kill(-c.pid, "SIGKILL");
  await gone;
}
afterEach(async () => {
  await stopChurn();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5 });
});

function scratch(): string {
  const d = mkdtempSync(join(tmpdir(), "give-tree-"));
  dirs.push(d);
  return d;
}

describe.runIf(process.getuid?.() === 0)("giveTree", () => {
  it("gives links themselves and never their targets", async () => {
    const root = scratch();
    const ws = join(root, "ws");
    mkdirSync(join(ws, "sub"), { recursive: true });
    writeFileSync(join(root, "outside"), "secret");
    writeFileSync(join(ws, "sub", "a"), "a");
    symlinkSync(join(root, "outside"), join(ws, "sub", "to-outside"));
    symlinkSync(root, join(ws, "to-root"));
    await giveTree(ws, UID, GID);
    expect(statSync(join(ws, "sub", "a")).uid).toBe(UID);
    expect(lstatSync(join(ws, "sub", "to-outside")).uid).toBe(UID);
    expect(lstatSync(join(ws, "to-root")).uid).toBe(UID);
    expect(statSync(join(root, "outside")).uid).toBe(0);
    expect(statSync(root).uid).toBe(0);
  });

  it("succeeds while folders are created and removed under the walk", async () => {
    const ws = join(scratch(), "ws");
    mkdirSync(ws);
    // A shell loop that keeps making and deleting deep folders of files, as a build would.
    churn = spawn(
      "/bin/sh",
      [
        "-c",
        `cd ${ws} && while :; do for i in 1 2 3 4 5 6 7 8; do mkdir -p d$i/x/y && touch d$i/x/y/f1 d$i/x/y/f2 d$i/x/f3; done; rm -rf d1 d2 d3 d4 d5 d6 d7 d8; done`,
      ],
      { stdio: "ignore", detached: true },
    );
    for (let i = 0; i < 150; i++) await giveTree(ws, UID, GID + (i % 2));
    await stopChurn();
    expect(statSync(ws).uid).toBe(UID);
  });

  it("gives an empty folder, and a root that is a link to an empty folder stays a link whose target keeps its owner", async () => {
    const root = scratch();
    const ws = join(root, "ws");
    mkdirSync(ws);
    await giveTree(ws, UID, GID);
    expect(lstatSync(ws)).toMatchObject({ uid: UID, gid: GID });
    const target = join(root, "elsewhere");
    mkdirSync(target);
    symlinkSync(target, join(root, "link"));
    await giveTree(join(root, "link"), UID, GID);
    expect(lstatSync(join(root, "link")).uid).toBe(UID);
    expect(statSync(target).uid).toBe(0);
  });

  it("reports a missing folder as not_found", async () => {
    const missing = join(scratch(), "nope");
    await expect(giveTree(missing, UID, GID)).rejects.toMatchObject({ code: "not_found" });
  });
});
