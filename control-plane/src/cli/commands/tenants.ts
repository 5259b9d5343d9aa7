// enclave tenants pause | resume TENANT: an operator's hold on a tenant (see tenants/tenant-pauses.ts).
import type { TenantPauseState } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { type CommandContext, usage } from "../context.js";
import { HELP } from "../help.js";
import { say, sayJson } from "../terminal-text.js";

function showPause(p: TenantPauseState): string {
  if (!p.paused) return `tenant ${p.tenant}: not paused; its calls are taken, its conversations wake on their next call`;
  const slept = p.slept.length ? `; put to sleep: ${p.slept.join(", ")}` : "";
  return `tenant ${p.tenant}: paused since ${new Date(p.pausedAtMs).toISOString()} by ${p.pausedBy}${p.reason ? ` (${p.reason})` : ""}${slept}`;
}

export async function tenantsCommand({ sub, rest, opts, client }: CommandContext): Promise<void> {
  const tenant = rest[0] ?? usage(HELP.tenants ?? "");
  let state: TenantPauseState;
  if (sub === "pause") state = await client.pauseTenant(tenant, { reason: opts.reason ?? "" });
  else if (sub === "resume") {
    if (opts.reason !== undefined) usage("--reason goes with pause");
    state = await client.resumeTenant(tenant);
  } else usage(HELP.tenants ?? "");
  if (opts.json) return sayJson(state);
  say(showPause(state));
}
