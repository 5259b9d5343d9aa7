// A copy-mode enclosure's /workspace with a size limit: a sparse ext4 image of exactly that size,
// attached to a loop device and handed to the engine as a local volume. Writing past it fails inside
// with ENOSPC, and the host never spends more than the image's size on it.
//
// Why this and not the alternatives on this engine (Docker 20.10, overlay2 on ext4): the engine's
// own `--storage-opt size=` needs overlay2 on xfs with project quotas; a tmpfs with size= holds
// the workspace in RAM (charged to the container's memory limit) and loses it if the container dies
// before it is copied back; the local volume driver's `o=loop` is not understood by this engine
// (its mount(2) passes "loop" to the kernel, which refuses it). So the loop device is made here,
// which needs root on the engine's machine and an engine reached over its local unix socket.
import { execFile } from "node:child_process";
import { constants, promises as fsp } from "node:fs";
import { basename, isAbsolute, join } from "node:path";
import { promisify } from "node:util";
import type Docker from "dockerode";
import type { WorkspaceDiskRecord } from "../model/conversation.js";
import { EnclaveError } from "../errors.js";

const execFileAsync = promisify(execFile);
// mkfs.ext4, debugfs and losetup live in sbin, which a service's PATH may leave out.
const SBIN_PATH = [process.env.PATH ?? "", "/usr/local/sbin", "/usr/sbin", "/sbin"].filter(Boolean).join(":");

function run(file: string, args: string[]): Promise<{ stdout: string }> {
  return execFileAsync(file, args, { timeout: 60_000, env: { ...process.env, PATH: SBIN_PATH } });
}

/** volume: the engine's name; image and loopDevice: the ext4 file on the host and its device. */
export type WorkspaceDisk = WorkspaceDiskRecord;

export interface DiskRequest {
  /** Host folder for the images (made 0700 when missing). */
  dir: string;
  /** Volume and image name: letters, digits, '-', '_', '.'. */
  name: string;
  limitBytes: number;
  /** Owner of the volume's root folder: the enclosure's user. */
  uid: number;
  gid: number;
  labels: Record<string, string>;
}

/** Reached over a unix socket (a path, or the default one the modem looks up), not a TCP host. */
export function engineIsLocal(docker: Docker): boolean {
  const modem = (docker as unknown as { modem?: { socketPath?: unknown; host?: unknown } }).modem;
  return !modem?.host && (typeof modem?.socketPath === "string" || typeof modem?.socketPath === "function");
}

function unavailable(why: string): EnclaveError {
  return new EnclaveError(
    "placement_unavailable",
    `copy mode gives /workspace a volume of its own size limit, and that volume could not be made: ${why}. ` +
      `It needs a local Docker engine, root, loop devices and mkfs.ext4 on this machine; use workspace_mode bind where they are missing.`,
  );
}

async function tool(file: string, args: string[]): Promise<string> {
  try {
    return (await run(file, args)).stdout.trim();
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw unavailable(`${file} ${args[0] ?? ""} failed: ${(e.stderr || e.message).trim().split("\n").slice(-2).join(" ")}`);
  }
}

/** Detaches the loop device only while it still serves our image (a number is reused once freed). */
async function detach(loopDevice: string, image: string): Promise<void> {
  const backing = await run("losetup", ["--list", "--noheadings", "--output", "BACK-FILE", loopDevice]).then(
    (r) => r.stdout.trim(),
    () => "",
  );
  if (backing === image) await run("losetup", ["--detach", loopDevice]).catch(() => undefined);
}

export async function createWorkspaceDisk(docker: Docker, req: DiskRequest): Promise<WorkspaceDisk> {
  if (!engineIsLocal(docker)) throw unavailable("the Docker engine is not reached over a local socket, so a loop device made here would not be its");
  await fsp.mkdir(req.dir, { recursive: true, mode: 0o700 });
  // Real path: it is what losetup reports back when the device is checked before detaching.
  const image = join(await fsp.realpath(req.dir), `${req.name}.ext4`);
  const fh = await fsp.open(image, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  let loopDevice = "";
  try {
    // Sparse: the host spends only what the enclosure writes, up to the limit.
    await fh.truncate(req.limitBytes);
    await fh.close();
    // No reserved blocks (the enclosure's user gets all of it); lazy init keeps the image sparse.
    await tool("mkfs.ext4", [
      "-q",
      "-F",
      "-b",
      "4096",
      "-m",
      "0",
      "-L",
      "workspace",
      "-E",
      `root_owner=${req.uid}:${req.gid},lazy_itable_init=1,lazy_journal_init=1`,
      image,
    ]);
    // lost+found would come back into the host workspace with the first copy back.
    await tool("debugfs", ["-w", "-R", "rmdir lost+found", image]);
    loopDevice = await tool("losetup", ["--find", "--show", image]);
    await docker.createVolume({
      Name: req.name,
      Driver: "local",
      DriverOpts: { type: "ext4", device: loopDevice, o: "nosuid,nodev" },
      Labels: { ...req.labels, "org.enclave.disk-bytes": String(req.limitBytes), [IMAGE_LABEL]: image },
    });
    return { volume: req.name, image, loopDevice, limitBytes: req.limitBytes };
  } catch (err) {
    await fh.close().catch(() => undefined);
    if (loopDevice) await detach(loopDevice, image);
    await fsp.rm(image, { force: true });
    if (err instanceof EnclaveError) throw err;
    throw unavailable((err as Error).message);
  }
}

/** Where the volume's image file is, kept on the volume so that it is found without the settings that made it. */
const IMAGE_LABEL = "org.enclave.disk-image";

/**
 * The disk a volume of ours stands for, rebuilt from the engine's record of it (for a volume no
 * conversation records any more): its loop device as the volume's options name it, its image as its
 * label does. A volume of another shape (a remote engine's plain one) has neither.
 */
export function diskOfVolume(volume: { Name: string; Options?: Record<string, string> | null; Labels?: Record<string, string> | null }): WorkspaceDisk {
  const device = volume.Options?.device ?? "";
  const image = volume.Labels?.[IMAGE_LABEL] ?? "";
  // Only an image createWorkspaceDisk would have named: an absolute `<volume>.ext4`.
  const ours = volume.Options?.type === "ext4" && /^\/dev\/loop\d+$/.test(device) && isAbsolute(image) && basename(image) === `${volume.Name}.ext4`;
  return ours ? { volume: volume.Name, image, loopDevice: device, limitBytes: 0 } : { volume: volume.Name, image: "", loopDevice: "", limitBytes: 0 };
}

/** Removes the volume, the loop device and the image; what is already gone is fine. */
export async function removeWorkspaceDisk(docker: Docker, disk: WorkspaceDisk): Promise<void> {
  try {
    await docker.getVolume(disk.volume).remove();
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode !== 404) throw err;
  }
  // A remote engine's plain volume has no loop device or image here.
  if (!disk.loopDevice) return;
  await detach(disk.loopDevice, disk.image);
  await fsp.rm(disk.image, { force: true });
}
