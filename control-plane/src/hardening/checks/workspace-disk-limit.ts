// The workspace's disk limit: copy mode's size-limited volume outside, the filesystem's size inside.
import type Docker from "dockerode";
import type { SelfAuditResponse } from "@enclave/proto/gen/enclave/agent/v1/info.js";
import type { EnclosureRecord } from "../../model/conversation.js";
import { IN_ENCLOSURE } from "../../model/enclosure.js";
import type { AuditCheck } from "../audit-check.js";
import type { EnclosureCheck } from "./check.js";
import { mib } from "./view.js";

/**
 * The workspace's disk limit. Copy mode: the engine's volume (an ext4 loop device of the recorded
 * size) outside, the filesystem's own size inside. Bind mode makes no such promise on this engine:
 * the enclosure writes the host folder, which only the host filesystem bounds; the item says so.
 */
function diskCheck(
  info: Docker.ContainerInspectInfo,
  inside: SelfAuditResponse | undefined,
  insideText: (f: (i: SelfAuditResponse) => string) => string,
  record: EnclosureRecord,
  volume: Docker.VolumeInspectInfo | undefined,
): AuditCheck {
  const mount = (info.Mounts ?? []).find((m) => m.Destination === IN_ENCLOSURE.workspace);
  const fsText = insideText((i) =>
    i.workspaceFsTotalBytes >= 0
      ? `/workspace on ${i.workspaceFsType}: ${i.workspaceFsTotalBytes} bytes total, ${i.workspaceFsFreeBytes} free`
      : "/workspace unreadable",
  );
  if (record.workspaceMode === "bind") {
    return {
      item: "workspace disk limit",
      expected: "copy mode: a workspace volume of a set size; bind mode: none of its own (the host folder's filesystem bounds it)",
      outside: `bind mount of a host folder${mount?.Type === "bind" ? "" : ` (engine says ${mount?.Type ?? "no mount"})`}: no limit of its own`,
      inside: fsText,
      ok: mount?.Type === "bind",
    };
  }
  const limit = record.limits.diskBytes ?? 0;
  const opts = volume?.Options ?? {};
  const labelled = Number(volume?.Labels?.["org.enclave.disk-bytes"] ?? 0);
  return {
    item: "workspace disk limit",
    expected: `a workspace volume of at most ${limit} bytes (${mib(limit)}); writes past it fail with ENOSPC inside`,
    outside: volume
      ? `${mount?.Type ?? "no"} mount of volume ${volume.Name}: ${opts.type ?? "?"} on ${opts.device ?? "?"}, ${labelled} bytes`
      : `volume ${record.disk?.volume ?? "(none recorded)"} not found by the engine`,
    inside: fsText,
    ok:
      mount?.Type === "volume" &&
      mount.Name === record.disk?.volume &&
      opts.type === "ext4" &&
      /^\/dev\/loop\d+$/.test(opts.device ?? "") &&
      labelled === limit &&
      limit > 0 &&
      !!inside &&
      inside.workspaceFsTotalBytes > 0 &&
      inside.workspaceFsTotalBytes <= limit,
  };
}

export const workspaceDiskLimitCheck: EnclosureCheck = {
  id: "workspace disk limit",
  proves: "copy mode's workspace is a volume of the recorded size, and writes past it fail inside",
  run(view) {
    return diskCheck(view.info, view.ins, view.insideText, view.record, view.outside.volume);
  },
};
