// The egress audit's "read-only root" item: the root filesystem is mounted read-only.
import { mountAt } from "../../procfs/proc-tables.js";
import type { EnclosureCheck } from "./check.js";
import { bad } from "./view.js";

export const readOnlyRootCheck: EnclosureCheck = {
  id: "read-only root",
  proves: "the root filesystem is mounted read-only",
  run(view) {
    const { hc, gv, host, gvisor, ins, insideText, kernelError, kernelName } = view;
    const mounts = gv ? gvisor?.mounts : host?.mounts;
    const root = mounts ? mountAt(mounts, "/") : undefined;
    return {
      item: "read-only root",
      expected: "root filesystem mounted read-only",
      outside: `ReadonlyRootfs ${hc.ReadonlyRootfs}; ${kernelName}: ${mounts ? (root ? `/ mounted ${root.options.join(",")} (${root.fsType})` : "/ not found") : bad(kernelError)}`,
      inside: insideText((i) => `/ mounted ${i.rootMountOptions || "(not found)"}`),
      ok: hc.ReadonlyRootfs === true && !!root?.options.includes("ro") && !!ins?.rootReadOnly,
    };
  },
};
