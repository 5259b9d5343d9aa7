// The page frame: head (one stylesheet, one deferred script), navigation with the live count of open
// cards, and the event-stream address the script connects to.
import { html, type SafeHtml } from "../html.js";

export type NavItem = "conversations" | "cards" | "conversation";

export interface PageOptions {
  title: string;
  nav: NavItem;
  csrf: string;
  /** The page's event stream (/events?…). */
  events: string;
  openCards: number;
  body: SafeHtml;
}

export function layout(o: PageOptions): string {
  const current = (item: NavItem) => (o.nav === item ? "page" : null);
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${o.csrf}">
<title>${o.title} · Enclave console</title>
<link rel="stylesheet" href="/assets/console.css">
<script src="/assets/console.js" defer></script>
</head>
<body data-events="${o.events}">
<header class="top">
<a class="brand" href="/">Enclave <span>console</span></a>
<nav>
<a href="/" ${current("conversations") ? html`aria-current="page"` : ""}>Conversations</a>
<a href="/cards" ${current("cards") ? html`aria-current="page"` : ""}>Cards <span class="badge" data-open-count="${o.openCards}">${o.openCards}</span></a>
</nav>
<span class="live-indicator" data-live-indicator title="live updates">connecting…</span>
</header>
<main>
${o.body}
</main>
</body>
</html>
`.value;
}

/** A bare error page (auth failures, bad requests): no script, no stream. */
export function errorPage(status: number, title: string, message: string, form?: SafeHtml): string {
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>${status} ${title} · Enclave console</title><link rel="stylesheet" href="/assets/console.css"></head>
<body class="error-page">
<main>
<h1>${title}</h1>
<p class="error-message">${message}</p>
${form ?? ""}
<p><a href="/">Back to the console</a></p>
</main>
</body>
</html>
`.value;
}
