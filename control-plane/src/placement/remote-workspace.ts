// Copy mode's /workspace on a remote engine: a plain volume of the engine's local driver. The size
// limit of a local engine (an ext4 image on a loop device, workspace-disk.ts) needs root on the
// engine's machine, which the control plane is not on. The engine's local driver offers a size only
// for tmpfs volumes, which would hold the workspace in the enclosure's memory and lose it when the
// container stops, before it is copied back; so no limit is set, the record says so (limitBytes 0),
// and the egress audit reports the limit as not enforced.
import type Docker from "dockerode";
import type { WorkspaceDiskRecord } from "../conversations/conversation-store.js";

export async function createPlainWorkspaceVolume(docker: Docker, req: { name: string; labels: Record<string, string> }): Promise<WorkspaceDiskRecord> {
  // Empty, so the engine fills it from the image's /workspace (its owner: the enclosure's user) on first mount.
  await docker.createVolume({ Name: req.name, Driver: "local", Labels: { ...req.labels, "org.enclave.disk-bytes": "0" } });
  return { volume: req.name, image: "", loopDevice: "", limitBytes: 0 };
}
