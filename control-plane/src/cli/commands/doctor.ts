// enclave doctor: whether this machine has what host placement needs, and the fix for what it lacks.
import { doctorChecks } from "../doctor-checks.js";
import type { Outcome } from "../exit-codes.js";
import type { CliOptions } from "../options.js";
import { say, sayJson } from "../terminal-text.js";

export async function doctorCommand({ opts }: { opts: CliOptions }): Promise<Outcome> {
  const checks = await doctorChecks();
  const ok = checks.every((c) => c.ok);
  if (opts.json) sayJson({ ok, checks });
  else {
    for (const c of checks) {
      say(`${c.ok ? "ok     " : "missing"}  ${c.what}: ${c.detail}`);
      for (const fix of [c.fix?.make, c.fix?.apt, c.fix?.other]) if (fix) say(`         fix: ${fix}`);
    }
    say(ok ? "everything host placement needs is here" : "some parts are missing: run the fixes above (`make run` installs them all)");
  }
  return ok ? "ok" : "refused";
}
