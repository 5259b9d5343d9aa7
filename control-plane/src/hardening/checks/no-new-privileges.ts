// The egress audit's "no new privileges" item: no process can gain privileges through exec.
import type { EnclosureCheck } from "./check.js";
import { bad, every, hostProcessLabel, list } from "./view.js";

export const noNewPrivilegesCheck: EnclosureCheck = {
  id: "no new privileges",
  proves: "no process can gain privileges through exec",
  run(view) {
    const { gv, host, hostError, ins, insideText, securityOpt } = view;
    const option = securityOpt.some((o) => /^no-new-privileges(:true)?$/.test(o));
    const kernel = host
      ? every(
          host.processes,
          (p) => p.noNewPrivs === "1",
          "with NoNewPrivs 1",
          hostProcessLabel,
          (p) => `NoNewPrivs ${p.noNewPrivs || "(not shown)"}`,
        )
      : { ok: false, text: bad(hostError) };
    return {
      item: "no new privileges",
      expected: "no-new-privileges set",
      outside: `security options ${list(securityOpt)}; host kernel${gv ? ", gVisor's processes" : ""}: ${kernel.text}${gv ? "; gVisor's kernel does not show the flag" : ""}`,
      inside: insideText((i) => (i.noNewPrivsShown || !gv ? `NoNewPrivs ${i.noNewPrivs ? 1 : 0}` : "NoNewPrivs not shown (gVisor's /proc has no such line)")),
      ok: option && kernel.ok && !!ins && (ins.noNewPrivs || (gv && !ins.noNewPrivsShown)),
    };
  },
};
