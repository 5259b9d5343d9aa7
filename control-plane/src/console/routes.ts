// The console's routes, one module each under routes/: pages, the fragments the script refreshes, the
// event stream, audit exports, and the POSTs (answer a card; start or stop an enclosure; start the
// host agent; the hands: cancel a call, stop a kernel or a host agent, force-stop an enclosure, close
// a run, delete a conversation). No GET starts or changes anything. Access, CSRF and errors are handled by the server
// before and after these. Every route goes through the ControlPlane facade only.
import type { ControlPlaneApi } from "../control-plane-api.js";
import { answerCard } from "./routes/answer-card.js";
import { auditDownload } from "./routes/audit-download.js";
import { auditPage } from "./routes/audit-page.js";
import { capabilitiesFragment } from "./routes/capabilities-fragment.js";
import { usageFragment } from "./routes/usage-fragment.js";
import { cardArguments } from "./routes/card-arguments.js";
import { cardsPage } from "./routes/cards-page.js";
import { conversationPage } from "./routes/conversation-page.js";
import { enclosureControl } from "./routes/enclosure-control.js";
import { eventStream } from "./routes/event-stream.js";
import { liveFragment } from "./routes/live-fragment.js";
import { overviewFragment } from "./routes/overview-fragment.js";
import { overviewPage } from "./routes/overview-page.js";
import type { Route } from "./routes/route.js";
import { startHostAgent } from "./routes/start-host-agent.js";
import { operatorHands } from "./routes/operator-hands.js";
import { tenantsControl, tenantsFragment } from "./routes/tenants-control.js";

export type { Reply, Route, RouteContext } from "./routes/route.js";

export function consoleRoutes(cp: ControlPlaneApi): Route[] {
  return [
    overviewPage(cp),
    cardsPage(cp),
    conversationPage(cp),
    auditPage(cp),
    auditDownload(cp),
    overviewFragment(cp),
    liveFragment(cp),
    capabilitiesFragment(cp),
    usageFragment(cp),
    eventStream(cp),
    cardArguments(cp),
    answerCard(cp),
    startHostAgent(cp),
    enclosureControl(cp),
    ...operatorHands(cp),
    tenantsFragment(cp),
    tenantsControl(cp),
  ];
}
