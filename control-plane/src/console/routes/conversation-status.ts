// What the overview and a conversation's page show live: per conversation its agent, cards and
// workers; for one conversation its placement, runs and every live-status source.
import type { ControlPlaneApi } from "../../control-plane-api.js";
import type { Session } from "../access.js";
import { LIMITS } from "../../limits.js";
import { html, type SafeHtml } from "../html.js";
import { handsSection } from "../views/operator-hands-view.js";
import { handsState } from "./operator-hands.js";
import { type ConversationSummary, conversationLive, type LiveSection } from "../views/conversation-views.js";
import { withTimeout } from "./route.js";

const SOURCE_TIMEOUT_MS = 5_000;

/**
 * The newest conversations' rows, at most LIMITS.consoleOverviewRows of them (the table is rendered
 * again on every refresh: thousands of rows would make each refresh cost as much as all of them),
 * and how many there are in all.
 */
export function summaries(cp: ControlPlaneApi): { rows: ConversationSummary[]; total: number } {
  const openCards = new Map<string, number>();
  for (const c of cp.cards(undefined, false)) openCards.set(c.conversationId, (openCards.get(c.conversationId) ?? 0) + 1);
  const all = cp.listConversations();
  const rows = all.slice(-LIMITS.consoleOverviewRows).map((conv) => ({
    conv,
    hostAgentPid: cp.hostAgentPid(conv.id),
    openCards: openCards.get(conv.id) ?? 0,
    runningWorkers: cp.runningWorkerCount(conv.id),
  }));
  return { rows, total: all.length };
}

async function liveSections(cp: ControlPlaneApi, conversationId: string): Promise<LiveSection[]> {
  return Promise.all(
    cp.liveStatusSources().map(async (s) => {
      try {
        // A slow source (an agent that does not answer) must not hold the page.
        return { id: s.id, title: s.title, empty: s.empty, items: await withTimeout(Promise.resolve(s.list(conversationId)), SOURCE_TIMEOUT_MS, s.title) };
      } catch (err) {
        return { id: s.id, title: s.title, empty: s.empty, items: [], error: `could not read: ${(err as Error).message}` };
      }
    }),
  );
}

/** The live part of a conversation's page, with the session's actions on what runs (operator-hands.ts). */
export async function liveFragment(cp: ControlPlaneApi, id: string, session: Session): Promise<SafeHtml> {
  const conv = cp.getConversation(id);
  const [sections, hands] = await Promise.all([liveSections(cp, id), handsState(cp, id, session)]);
  return html`${conversationLive(conv, cp.hostAgentPid(id), cp.listRuns(id), sections)}${handsSection(hands, session.csrf)}`;
}
