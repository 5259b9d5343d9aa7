// The console's hands on a conversation's running things, each a POST (the server checks the origin
// and the session's CSRF token before any of these runs):
//   /conversations/ID/calls/CALL/cancel, /kernels/LANG/stop, /host-agent/stop, /enclosure/force-stop
//     an operator's only (a tenant's session is refused with permission_denied, 403);
//   /conversations/ID/runs/RUN/close, /delete
//     whoever sees the conversation (a tenant its own, as through the API).
// An operator's action is recorded as an operator_action event naming the session's tenant and token
// (or the console's own access). The section itself is part of the conversation's live fragment.
import type { ControlPlaneApi } from "../../control-plane-api.js";
import { EnclaveError } from "../../errors.js";
import { noCall } from "../../tools/calls-in-flight.js";
import type { Session } from "../access.js";
import type { HandsState } from "../views/operator-hands-view.js";
import { DESCRIBE_TIMEOUT_MS, requireConversation, type Route, type RouteContext, withTimeout } from "./route.js";

/** Whether the session acts as an operator: an operator tenant's token, or the console's own access. */
export function isOperatorSession(session: Session): boolean {
  return !session.viewer || session.viewer.operator;
}

/** Who the session is, as an operator_action event names it. */
export function consoleActor(session: Session): string {
  return session.viewer ? `tenant ${session.viewer.name} (console, token ${session.tokenId ?? "?"})` : "the console's own access";
}

function operatorOnly(ctx: RouteContext, what: string): string {
  if (!isOperatorSession(ctx.session)) {
    throw new EnclaveError("permission_denied", `${what} is an operator's action and tenant \`${ctx.session.viewer?.name ?? ""}\` is not an operator`);
  }
  return consoleActor(ctx.session);
}

export async function handsState(cp: ControlPlaneApi, id: string, session: Session): Promise<HandsState> {
  const conv = cp.getConversation(id);
  const runs = cp.listRuns(id);
  if (!isOperatorSession(session)) return { conv, runs };
  // A slow agent must not hold the page: its kernels are then shown as none.
  const kernels = await withTimeout(cp.liveKernels(id), DESCRIBE_TIMEOUT_MS, "the agent").catch(() => [] as string[]);
  return { conv, runs, operator: { calls: cp.listCallsInFlight(id), kernels, hostAgentPid: cp.hostAgentPid(id) } };
}

export function operatorHands(cp: ControlPlaneApi): Route[] {
  const back = (id: string): string => `/conversations/${encodeURIComponent(id)}`;
  const audit = (ctx: RouteContext, action: string, id: string, tenant: string, detail: string): void => {
    if (!isOperatorSession(ctx.session)) return; // a tenant's own close or delete is its own (the API's rule too)
    cp.recordAudit({ kind: "operator_action", tool: action, conversationId: id, tenant, outcome: "ok", detail: `by ${consoleActor(ctx.session)}: ${detail}` });
  };
  return [
    {
      method: "POST",
      pattern: /^\/conversations\/([^/]+)\/calls\/([^/]+)\/cancel$/,
      handle: (ctx) => {
        const by = operatorOnly(ctx, "cancelling a call");
        const id = requireConversation(cp, ctx);
        const callId = decodeURIComponent(ctx.params[1] ?? "");
        // A call of another conversation is not this page's: answered as one not in flight.
        if (cp.callInFlight(callId).conversationId !== id) throw noCall(callId);
        const call = cp.cancelCall(callId, by);
        return { json: { ok: true, callId: String(call.callId) }, redirect: back(id) };
      },
    },
    {
      method: "POST",
      pattern: /^\/conversations\/([^/]+)\/kernels\/(python|javascript)\/stop$/,
      handle: async (ctx) => {
        const by = operatorOnly(ctx, "stopping a kernel");
        const id = requireConversation(cp, ctx);
        const stopped = await cp.stopKernel(id, { language: ctx.params[1] }, by);
        return { json: { ok: true, ...stopped }, redirect: back(id) };
      },
    },
    {
      method: "POST",
      pattern: /^\/conversations\/([^/]+)\/host-agent\/stop$/,
      handle: async (ctx) => {
        const by = operatorOnly(ctx, "stopping a host agent");
        const id = requireConversation(cp, ctx);
        return { json: { ok: true, ...(await cp.stopHostAgent(id, by)) }, redirect: back(id) };
      },
    },
    {
      method: "POST",
      pattern: /^\/conversations\/([^/]+)\/enclosure\/force-stop$/,
      handle: async (ctx) => {
        operatorOnly(ctx, "forcing an enclosure's stop");
        const id = requireConversation(cp, ctx);
        const conv = await cp.stopEnclosure(id, { force: true });
        audit(ctx, "force_stop_enclosure", id, conv.tenant, "stopped the enclosure without copying /workspace back");
        return { json: { ok: true, placement: conv.placement }, redirect: back(id) };
      },
    },
    {
      method: "POST",
      pattern: /^\/conversations\/([^/]+)\/runs\/([^/]+)\/close$/,
      handle: (ctx) => {
        const id = requireConversation(cp, ctx);
        const runId = decodeURIComponent(ctx.params[1] ?? "");
        // Only a run of this conversation (a tenant's view answers another tenant's as missing).
        if (!cp.listRuns(id).some((r) => r.id === runId)) throw new EnclaveError("not_found", `run \`${runId}\` is not open in this conversation`);
        cp.closeRun(runId);
        audit(ctx, "close_run", id, cp.conversationTenant(id), `closed run ${runId}`);
        return { json: { ok: true }, redirect: back(id) };
      },
    },
    {
      method: "POST",
      pattern: /^\/conversations\/([^/]+)\/delete$/,
      handle: async (ctx) => {
        const id = requireConversation(cp, ctx);
        const tenant = cp.conversationTenant(id);
        await cp.deleteConversation(id);
        audit(ctx, "delete_conversation", id, tenant, "deleted the conversation");
        return { json: { ok: true, navigate: "/" }, redirect: "/" };
      },
    },
  ];
}
