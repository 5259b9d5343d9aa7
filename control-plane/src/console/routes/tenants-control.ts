// The operator's tenants: GET /fragments/tenants (the table the overview refreshes) and
// POST /tenants/NAME/pause|resume. Operators only: a tenant's session is refused (permission_denied),
// and sees no table. Who paused is the operator tenant of the session, or "console" for the
// console's own token.
import type { ControlPlaneApi } from "../../control-plane-api.js";
import { IMPLICIT_TENANT } from "../../conversations/conversation-store.js";
import { EnclaveError } from "../../errors.js";
import { LIMITS } from "../../limits.js";
import type { Session } from "../access.js";
import type { SafeHtml } from "../html.js";
import { html } from "../html.js";
import { type TenantRow, tenantsTable } from "../views/lifecycle-view.js";
import type { Route } from "./route.js";

const isOperator = (s: Session): boolean => !s.viewer || s.viewer.operator;

function rows(cp: ControlPlaneApi): TenantRow[] {
  const byName = new Map<string, TenantRow>();
  for (const c of cp.listConversations()) {
    if (c.tenant === IMPLICIT_TENANT) continue;
    const row = byName.get(c.tenant) ?? { name: c.tenant, conversations: 0, sleeping: 0, pause: cp.tenantPause(c.tenant) };
    row.conversations++;
    if (c.lifecycleState === "sleeping") row.sleeping++;
    byName.set(c.tenant, row);
  }
  // A paused tenant stays listed (so it can be resumed here) when it has no conversation left.
  for (const p of cp.pausedTenants()) if (!byName.has(p.tenant)) byName.set(p.tenant, { name: p.tenant, conversations: 0, sleeping: 0, pause: p });
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** The overview's tenants section: the table for an operator, nothing for a tenant's session. */
export function tenantsSection(cp: ControlPlaneApi, session: Session): SafeHtml {
  if (!isOperator(session)) return html``;
  return html`<div data-live="/fragments/tenants">${tenantsTable(rows(cp), session.csrf)}</div>`;
}

export function tenantsFragment(cp: ControlPlaneApi): Route {
  return {
    method: "GET",
    pattern: /^\/fragments\/tenants$/,
    handle: (ctx) => ({ html: isOperator(ctx.session) ? tenantsTable(rows(cp), ctx.session.csrf).value : "" }),
  };
}

export function tenantsControl(cp: ControlPlaneApi): Route {
  return {
    method: "POST",
    pattern: /^\/tenants\/([^/]+)\/(pause|resume)$/,
    handle: async (ctx) => {
      if (!isOperator(ctx.session)) {
        throw new EnclaveError(
          "permission_denied",
          `pausing and resuming tenants is an operator's action; tenant \`${ctx.session.viewer?.name}\`'s session is not an operator's`,
        );
      }
      const tenant = decodeURIComponent(ctx.params[0] ?? "");
      // Only a tenant the console knows (one owning conversations, or paused) may be named: the console has no token file to look others up in.
      if (!rows(cp).some((r) => r.name === tenant)) throw new EnclaveError("not_found", `tenant \`${tenant}\` owns no conversation here`);
      const by = ctx.session.viewer?.name ?? "console";
      if (ctx.params[1] === "resume") {
        cp.resumeTenant(tenant, by);
        return { json: { ok: true, paused: false }, redirect: "/" };
      }
      const reason = (ctx.form.get("reason") ?? "").trim();
      if (reason.length > LIMITS.pauseReasonMaxChars)
        throw new EnclaveError("invalid_arguments", `reason is ${reason.length} characters; at most ${LIMITS.pauseReasonMaxChars}`);
      const done = await cp.pauseTenant(tenant, by, reason);
      return { json: { ok: true, paused: true, slept: done.slept }, redirect: "/" };
    },
  };
}
