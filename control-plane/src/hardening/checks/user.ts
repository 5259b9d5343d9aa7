// The egress audit's "user" item: every process runs as the enclosure's own non-root uid and gid.
import type { EnclosureCheck } from "./check.js";
import { bad, every, hostProcessLabel } from "./view.js";

export const userCheck: EnclosureCheck = {
  id: "user",
  proves: "every process runs as the enclosure's own non-root uid and gid",
  run(view) {
    const { record, info, gv, host, hostError, gvisor, gvisorError, ins, insideText, kernelName, uid, gid } = view;
    const kernel = gv
      ? gvisor
        ? every(
            gvisor.processes,
            (p) => p.uids.every((u) => u === uid) && p.gids.every((g) => g === gid),
            `as uid ${uid} gid ${gid}`,
            (p) => `${p.pid} (${p.name})`,
            (p) => `uid ${p.uids.join("/")} gid ${p.gids.join("/")}`,
          )
        : { ok: false, text: bad(gvisorError) }
      : host
        ? every(
            host.processes,
            (p) => p.uids.every((u) => u === uid) && p.gids.every((g) => g === gid),
            `as uid ${uid} gid ${gid}`,
            hostProcessLabel,
            (p) => `uid ${p.uids.join("/")} gid ${p.gids.join("/")}`,
          )
        : { ok: false, text: bad(hostError) };
    return {
      item: "user",
      expected: "a non-root user, the enclosure's own (the uid recorded for its conversation)",
      outside: `user ${info.Config.User || "(image default)"}${info.Config.User === record.user ? "" : ` (recorded: ${record.user})`}; ${kernelName}: ${kernel.text}`,
      inside: insideText((i) => `uid ${i.uid} gid ${i.gid}`),
      ok: uid > 0 && gid > 0 && info.Config.User === record.user && kernel.ok && !!ins && ins.uid === uid && ins.gid === gid,
    };
  },
};
