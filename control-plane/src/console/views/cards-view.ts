// A question or permission card as an answerable form: numbered, options as buttons (checkboxes when
// several may be chosen), free text when allowed, dismiss (no answer: a permission card's call is refused). Everything from the agent is escaped.
import type { Card } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { displayPath } from "../../approval/touched-files.js";
import { html, join, type SafeHtml } from "../html.js";
import { formatTime } from "./format.js";

export function cardKey(card: Pick<Card, "conversationId" | "number">): string {
  return `${card.conversationId}#${card.number}`;
}

export function cardAction(card: Pick<Card, "conversationId" | "number">): string {
  return `/cards/${encodeURIComponent(card.conversationId)}/${card.number}/answer`;
}

export function cardArgumentsPath(card: Pick<Card, "conversationId" | "number">): string {
  return `/cards/${encodeURIComponent(card.conversationId)}/${card.number}/arguments.json`;
}

function prettyArguments(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

/** Every file the call touches, what the list cannot say, and the arguments: a cut preview says so. */
function permissionDetails(card: Card): SafeHtml {
  const files = card.files.length
    ? html`<p class="card-files-title">Files it touches (${card.files.length}):</p><ul class="card-files">${card.files.map((f) => html`<li><code>${displayPath(f)}</code></li>`)}</ul>`
    : html`<p class="card-files-title">Files it touches: none named in its arguments.</p>`;
  const note = card.filesNote ? html`<p class="card-files-note">${card.filesNote}</p>` : "";
  const download = html`<a href="${cardArgumentsPath(card)}" download class="card-arguments-download">download the full arguments</a>`;
  const cut = card.argumentsTruncated
    ? html`<p class="card-cut warn" role="note">Shortened: this shows the first ${card.argumentsJson.length} of ${card.argumentsChars} characters of the arguments — ${download} (or <code>enclave cards ${card.conversationId} --full</code>) to read them all before you decide.</p>`
    : "";
  return html`<p class="card-tool">Tool <code>${card.tool}</code></p>
${files}${note}
<p class="card-arguments-title">Arguments (${card.argumentsChars} characters${card.argumentsTruncated ? ", shortened" : ""}) · ${download}:</p>
${cut}<pre class="card-arguments">${card.argumentsTruncated ? card.argumentsJson : prettyArguments(card.argumentsJson)}${card.argumentsTruncated ? "…" : ""}</pre>${cut}`;
}

function optionControls(card: Card): SafeHtml {
  if (!card.options.length) return html``;
  if (card.multiSelect) {
    return html`<fieldset class="options multi"><legend>Choose one or more</legend>${card.options.map(
      (o) =>
        html`<label class="option"><input type="checkbox" name="selected" value="${o.label}"><span class="label">${o.label}</span>${
          o.description ? html`<span class="description">${o.description}</span>` : ""
        }</label>`,
    )}</fieldset>`;
  }
  const permission = card.kind === "permission";
  return html`<div class="options single">${card.options.map(
    (o) =>
      html`<button type="submit" name="choice" value="${o.label}" class="option${permission ? ` choice-${o.label === "allow" ? "allow" : o.label === "deny" ? "deny" : "other"}` : ""}" title="${o.description}"><span class="label">${o.label}</span>${
        o.description ? html`<span class="description">${o.description}</span>` : ""
      }</button>`,
  )}</div>`;
}

export function renderCard(card: Card, csrf: string, returnTo: string): SafeHtml {
  const permission = card.kind === "permission";
  const multi = card.multiSelect && card.options.length > 0;
  const textOnly = !card.options.length;
  const sendLabel = multi ? "Send choice" : "Send text";
  return html`<article class="card card-${permission ? "permission" : "question"}" id="card-${card.conversationId}-${card.number}" data-card-key="${cardKey(card)}" data-space="${card.conversationId}">
<header class="card-head"><span class="card-number">#${card.number}</span><span class="card-kind">${permission ? "permission" : "question"}</span><a class="card-space" href="/conversations/${encodeURIComponent(card.conversationId)}">${card.conversationId}</a><span class="card-run" title="run">${card.runId}</span><span class="card-expiry">expires <time data-expires="${card.expiresAtMs}">${formatTime(card.expiresAtMs)}</time></span></header>
<h3 class="card-question">${card.question}</h3>
${card.context && !permission ? html`<p class="card-context">${card.context}</p>` : ""}
${permission ? permissionDetails(card) : ""}
<form class="answer" method="post" action="${cardAction(card)}" data-async="card">
<input type="hidden" name="_csrf" value="${csrf}">
<input type="hidden" name="return_to" value="${returnTo}">
${optionControls(card)}
${card.allowFreeText ? html`<label class="free-text"><span>${textOnly ? "Answer" : "Or write an answer"}</span><textarea name="free_text" rows="2" maxlength="16384"></textarea></label>` : ""}
<div class="card-actions">${multi || card.allowFreeText ? html`<button type="submit" name="send" value="1" class="send">${textOnly ? "Send" : sendLabel}</button>` : ""}<button type="submit" name="skip" value="1" class="skip" title="${permission ? "closes the card without an answer: the call is refused, as if denied" : "closes the card without an answer: the agent proceeds on a stated assumption"}">${permission ? "Dismiss (refuse the call)" : "Dismiss (no answer)"}</button></div>
<p class="form-error" role="alert" hidden></p>
</form>
</article>`;
}

/** The open cards of one conversation (space) or of all (space ""), live-updated by the script. */
export function cardsSection(cards: readonly Card[], space: string, csrf: string, returnTo: string): SafeHtml {
  const items = join(cards.map((c) => renderCard(c, csrf, returnTo)));
  return html`<section class="cards" aria-label="open cards"><div class="cards-list" data-cards data-cards-space="${space}" data-return-to="${returnTo}">${items}</div><p class="empty">No open cards${space ? html` in <code>${space}</code>` : ""}.</p></section>`;
}

export function closedCardsTable(cards: readonly Card[]): SafeHtml {
  if (!cards.length) return html`<p class="empty-note">No card closed recently.</p>`;
  return html`<table class="grid closed-cards"><thead><tr><th>card</th><th>conversation</th><th>kind</th><th>question</th><th>state</th><th>answer</th><th>closed</th></tr></thead><tbody>${[
    ...cards,
  ]
    .reverse()
    .map(
      (c) =>
        html`<tr><td>#${c.number}</td><td><a href="/conversations/${encodeURIComponent(c.conversationId)}">${c.conversationId}</a></td><td>${c.kind}</td><td class="wrap">${c.question}</td><td><span class="state state-${c.state}">${c.state.replace("_", " ")}</span></td><td class="wrap">${
          c.answer ? (c.answer.skip ? "dismissed without an answer" : [...c.answer.selected, c.answer.freeText].filter(Boolean).join(", ")) : ""
        }</td><td>${formatTime(c.closedAtMs)}</td></tr>`,
    )}</tbody></table>`;
}
