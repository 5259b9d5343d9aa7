// At start the control plane removes the containers it made that no record refers to (their
// conversation is gone, or the record names another container), and leaves alone the ones it
// records and every container another control plane made.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Docker from "dockerode";
import { afterAll, describe, expect, it } from "vitest";
import { imageTags } from "@enclave/control-plane/image-set/image-tags.js";
import { ConversationStore } from "@enclave/control-plane/conversations/conversation-store.js";
import { ownerId } from "@enclave/control-plane/placement/docker-driver.js";
import { LABELS } from "@enclave/control-plane/model/labels.js";
import { createWorkspaceDisk, removeWorkspaceDisk, type WorkspaceDisk } from "@enclave/control-plane/placement/workspace-disk.js";
import { type Fixture, startFixture } from "../helpers/control-plane-fixture.js";

const docker = new Docker();
const made: string[] = [];
const disks: WorkspaceDisk[] = [];
let fx: Fixture | undefined;

afterAll(async () => {
  await fx?.close();
  for (const id of made)
    await docker
      .getContainer(id)
      .remove({ force: true })
      .catch(() => undefined);
  for (const d of disks) await removeWorkspaceDisk(docker, d).catch(() => undefined);
});

/** A copy-mode workspace disk (volume, loop device, image), labelled as a control plane labels them. */
async function disk(dataDir: string, owner: string, conversation: string): Promise<WorkspaceDisk> {
  const d = await createWorkspaceDisk(docker, {
    dir: join(dataDir, "enclosure-disks"),
    name: `enclave-${conversation}-${disks.length}-workspace`,
    limitBytes: 64 * 1024 * 1024,
    uid: 1000,
    gid: 1000,
    labels: { [LABELS.managed]: "true", [LABELS.conversation]: conversation, [LABELS.owner]: owner },
  });
  disks.push(d);
  return d;
}

async function volumeExists(name: string): Promise<boolean> {
  try {
    await docker.getVolume(name).inspect();
    return true;
  } catch {
    return false;
  }
}

const loopBacking = (device: string): string => {
  try {
    return execFileSync("losetup", ["--list", "--noheadings", "--output", "BACK-FILE", device], { encoding: "utf8" }).trim();
  } catch {
    return "";
  }
};

/** A container that is never started, labelled as a control plane labels its enclosures. */
async function container(owner: string, conversation: string): Promise<string> {
  const c = await docker.createContainer({
    Image: imageTags().runtime,
    Entrypoint: ["/bin/true"],
    NetworkDisabled: true,
    Labels: { [LABELS.managed]: "true", [LABELS.conversation]: conversation, [LABELS.owner]: owner },
  });
  made.push(c.id);
  return c.id;
}

async function exists(id: string): Promise<boolean> {
  try {
    await docker.getContainer(id).inspect();
    return true;
  } catch {
    return false;
  }
}

describe("orphaned containers", () => {
  it("are reaped at start; recorded ones and another control plane's are kept", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "enclave-reap-"));
    const owner = ownerId(dataDir);
    const recorded = await container(owner, "kept");
    const superseded = await container(owner, "kept");
    const ghost = await container(owner, "ghost");
    const foreign = await container("another-control-plane", "ghost");
    // Copy mode's workspace disks: one the record names, one of a conversation gone from the store.
    const keptDisk = await disk(dataDir, owner, "kept");
    const ghostDisk = await disk(dataDir, owner, "ghost");

    const store = new ConversationStore(dataDir);
    const workspacePath = join(dataDir, "kept-workspace");
    mkdirSync(workspacePath);
    store.put({
      id: "kept",
      workspacePath,
      ownsWorkspace: false,
      tenant: "local",
      createdAtMs: Date.now(),
      enclosure: {
        containerId: recorded,
        image: imageTags().runtime,
        startedAtMs: Date.now(),
        limits: { memoryBytes: 0, cpus: 0, pids: 0, diskBytes: 0 },
        workspaceMode: "copy",
        disk: keptDisk,
        runtime: "runc",
        relaxations: [],
        user: "1000:1000",
        state: "running",
        detail: "",
      },
    });

    store.close();
    fx = await startFixture((config) => {
      config.dataDir = dataDir;
      config.listen = `unix://${join(dataDir, "cp.sock")}`;
    });
    expect(await exists(ghost), "a container whose conversation is not in the store").toBe(false);
    expect(await exists(superseded), "a container its conversation's record does not name").toBe(false);
    expect(await exists(recorded), "the container the record names").toBe(true);
    expect(await exists(foreign), "another control plane's container").toBe(true);
    expect(await volumeExists(ghostDisk.volume), "an orphaned workspace volume").toBe(false);
    expect(existsSync(ghostDisk.image), "an orphaned workspace image").toBe(false);
    expect(loopBacking(ghostDisk.loopDevice), "an orphaned loop device").not.toBe(ghostDisk.image);
    expect(await volumeExists(keptDisk.volume), "the workspace volume the record names").toBe(true);
    expect(existsSync(keptDisk.image)).toBe(true);
    // The recorded one never ran: recovery found it dead, and said so.
    expect((await fx.client.getConversation("kept")).enclosure?.state).toBe("dead");
  });
});
