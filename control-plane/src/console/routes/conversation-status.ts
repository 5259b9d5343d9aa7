// What the overview and a conversation's page show live: per conversation its agent, cards and
// workers; for one conversation its placement, runs and every live-status source.
import type { ControlPlaneApi } from "../../control-plane-api.js";
import type { Session } from "../access.js";
import { html, type SafeHtml } from "../html.js";
import { handsSection } from "../views/operator-hands-view.js";
import { handsState } from "./operator-hands.js";
import { type ConversationSummary, conversationLive, type LiveSection } from "../views/conversation-views.js";
import { withTimeout } from "./route.js";

const SOURCE_TIMEOUT_MS = 5_000;

export function summaries(cp: ControlPlaneApi): ConversationSummary[] {
  const open = cp.cards(undefined, false);
  return cp.listConversations().map((conv) => ({
    conv,
    hostAgentPid: cp.hostAgentPid(conv.id),
    openCards: open.filter((c) => c.conversationId === conv.id).length,
    runningWorkers: cp.runningWorkerCount(conv.id),
  }));
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
