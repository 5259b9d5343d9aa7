// Copy mode's /workspace on a remote engine: a plain volume of the engine's local driver. The size
// limit of a local engine (an ext4 image on a loop device, workspace-disk.ts) needs root on the
// engine's machine, which the control plane is not on. The engine's local driver offers a size only
// for tmpfs volumes, which would hold the workspace in the enclosure's memory and lose it when the
// container stops, before it is copied back; so no limit is set, the record says so (limitBytes 0),
// and the egress audit reports the limit as not enforced.
import type Docker from "dockerode";
import { pack as tarPack } from "tar-stream";
import type { WorkspaceDiskRecord } from "../model/conversation.js";
import { NO_COPY } from "./enclosure-settings.js";
import { IN_ENCLOSURE } from "../model/enclosure.js";

export async function createPlainWorkspaceVolume(
  docker: Docker,
  req: { name: string; labels: Record<string, string>; image: string; uid: number; gid: number },
): Promise<WorkspaceDiskRecord> {
  await docker.createVolume({ Name: req.name, Driver: "local", Labels: { ...req.labels, "org.enclave.disk-bytes": "0" } });
  const disk = { volume: req.name, image: "", loopDevice: "", limitBytes: 0 };
  // Its root goes to the enclosure's user: the folder `workspace/` put at / of a container never
  // started that mounts the volume there (the enclosure's own root is read-only, so it cannot take
  // this archive; and the engine's copy from the image would give the root the image's owner).
  const holder = await docker.createContainer({
    Image: req.image,
    Entrypoint: ["/nonexistent"],
    Labels: req.labels,
    NetworkDisabled: true,
    HostConfig: { NetworkMode: "none", Mounts: [{ Type: "volume", Source: req.name, Target: IN_ENCLOSURE.workspace, VolumeOptions: NO_COPY }] },
  });
  try {
    const root = tarPack();
    root.entry({
      name: `${IN_ENCLOSURE.workspace.slice(1)}/`,
      type: "directory",
      mode: 0o755,
      uid: req.uid,
      gid: req.gid,
      pax: { uid: String(req.uid), gid: String(req.gid) },
    });
    root.finalize();
    await holder.putArchive(root as unknown as NodeJS.ReadableStream, { path: "/" });
  } finally {
    await holder.remove({ force: true }).catch(() => undefined);
  }
  return disk;
}
