// What a tenant's token sees at the console: the control plane narrowed to its own conversations,
// cards, runs, audit events and tool calls. Another tenant's conversation answers not_found exactly
// as a missing one. Deny by default: a facade method not listed here is refused, so a route added
// later cannot reach every tenant's records through a tenant's session by accident. An operator's
// session (or the console's own token) gets the whole control plane instead.
import type { ConversationView } from "../control-plane.js";
import type { ControlPlaneApi } from "../control-plane-api.js";
import { splitKey } from "../conversations/conversation-keys.js";
import { noConversation } from "../conversations/conversation-store.js";
import { EnclaveError } from "../errors.js";
import { noRun } from "../runs/run-store.js";
import { withinTenantLimits } from "../tenants/tenant-limits.js";
import { redactHostPaths } from "../server/host-path-redaction.js";
import type { Tenant } from "../tenants/tenant.js";

export function tenantView(cp: ControlPlaneApi, tenant: Tenant): ControlPlaneApi {
  const owns = (key: string): boolean => {
    try {
      return cp.conversationTenant(key) === tenant.name;
    } catch {
      return false;
    }
  };
  const mine = (key: string): string => {
    if (!owns(key)) throw noConversation(splitKey(key).id);
    return key;
  };
  const ownCard = (c: { conversationId: string }): boolean => owns(c.conversationId);
  // A tenant's workspaces are the data folder's: their host paths are not its to know.
  const pathless = (c: ConversationView): ConversationView => ({ ...c, workspacePath: "" });
  const narrowed: Partial<ControlPlaneApi> = {
    listConversations: () =>
      cp
        .listConversations()
        .filter((c) => c.tenant === tenant.name)
        .map(pathless),
    getConversation: (id) => pathless(cp.getConversation(mine(id))),
    conversationUsage: async (id) => {
      const u = await cp.conversationUsage(mine(id));
      const text = (s: string): string => redactHostPaths(s, cp.dataDir);
      return {
        ...u,
        cgroup: u.cgroup && { ...u.cgroup, source: text(u.cgroup.source) },
        cgroupUnavailable: text(u.cgroupUnavailable),
        engineUnavailable: text(u.engineUnavailable),
        workspace: u.workspace && { ...u.workspace, note: text(u.workspace.note) },
        workspaceUnavailable: text(u.workspaceUnavailable),
      };
    },
    conversationTenant: (id) => cp.conversationTenant(mine(id)),
    agentRunning: (id) => cp.agentRunning(mine(id)),
    hostAgentPid: (id) => cp.hostAgentPid(mine(id)),
    runningWorkerCount: (id) => cp.runningWorkerCount(mine(id)),
    describeRunningPlacement: (id) => cp.describeRunningPlacement(mine(id)),
    startHostAgent: async (id) => {
      mine(id);
      if (cp.hostAgentPid(id) !== undefined) return cp.startHostAgent(id);
      const running = cp.liveHostAgents(tenant.name, id);
      const release = cp.quotas.enterHostAgentStart(tenant, running);
      try {
        return await cp.startHostAgent(id);
      } finally {
        release();
      }
    },
    stopEnclosure: async (id) => pathless(await cp.stopEnclosure(mine(id))),
    pauseEnclosure: async (id, opts) => pathless(await cp.pauseEnclosure(mine(id), opts)),
    resumeEnclosure: async (id, opts) => pathless(await cp.resumeEnclosure(mine(id), opts)),
    startEnclosure: async (id, req) => {
      mine(id);
      const bounded = withinTenantLimits(tenant, req, cp.enclosureDefaults());
      // The tenant's quota from the same account the API takes from, starts in flight included.
      const release = cp.quotas.enterEnclosureStart(tenant, cp.liveEnclosures(tenant.name, id));
      try {
        return pathless(await cp.startEnclosure(id, bounded));
      } finally {
        release();
      }
    },
    // A tenant closes its own runs and deletes its own conversations, as through the API.
    closeRun: (id) => {
      const run = cp.listRuns().find((r) => r.id === id && r.tenant === tenant.name);
      if (!run) throw noRun(id);
      cp.closeRun(id);
    },
    deleteConversation: (id) => cp.deleteConversation(mine(id)),
    listRuns: (id) => (id ? cp.listRuns(mine(id)) : cp.listRuns().filter((r) => r.tenant === tenant.name)),
    cards: (space, includeClosed) => cp.cards(space ? mine(space) : undefined, includeClosed).filter(ownCard),
    answerCard: (space, number, answer) => cp.answerCard(mine(space), number, answer),
    cardArgumentsPage: (space, number, offset, limit) => cp.cardArgumentsPage(mine(space), number, offset, limit),
    cardArgumentsText: (space, number) => cp.cardArgumentsText(mine(space), number),
    subscribeCards: (space, listener) => {
      const s = cp.subscribeCards(space ? mine(space) : undefined, (e) => {
        if (ownCard(e.card)) listener(e);
      });
      return { openCards: s.openCards.filter(ownCard), unsubscribe: s.unsubscribe };
    },
    // By the event's own tenant, so a tenant reads the history of its conversations deleted since.
    auditHistory: (conversationId) => cp.auditHistory(conversationId, tenant.name),
    auditPage: (q) => cp.auditPage({ ...q, tenant: tenant.name }),
    subscribeAudit: (listener) =>
      cp.subscribeAudit((e) => {
        if (e.tenant === tenant.name) listener(e);
      }),
    subscribeCalls: (listener) =>
      cp.subscribeCalls((e) => {
        if (owns(e.call.conversationId)) listener(e);
      }),
    // What is the same for everyone: the tools there are, the limits an enclosure gets, the status
    // sources (each is asked about one conversation, which the routes check first).
    toolNames: () => cp.toolNames(),
    enclosureDefaults: () => cp.enclosureDefaults(),
    liveStatusSources: () => cp.liveStatusSources(),
  };
  return new Proxy(cp, {
    get(target, prop) {
      if (Object.prototype.hasOwnProperty.call(narrowed, prop)) return narrowed[prop as keyof ControlPlaneApi];
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      return () => {
        throw new EnclaveError(
          "failed_precondition",
          `a tenant's console cannot do that (${String(prop)}); use the API with the tenant's token, or an operator's console`,
        );
      };
    },
  });
}
