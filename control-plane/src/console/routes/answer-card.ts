// POST /cards/SPACE/N/answer: answers a card from its form.
import type { CardAnswer } from "@enclave/proto/gen/enclave/control/v1/control.js";
import type { ControlPlaneApi } from "../../control-plane-api.js";
import type { Route } from "./route.js";

function answerFromForm(form: URLSearchParams): CardAnswer {
  if (form.has("skip")) return { selected: [], freeText: "", skip: true };
  const choice = form.get("choice");
  const selected = choice !== null ? [choice] : form.getAll("selected");
  return { selected, freeText: form.get("free_text") ?? "", skip: false };
}

/** Where to go back to after a form without script: a path on this console only. */
function returnTo(form: URLSearchParams, fallback: string): string {
  const to = form.get("return_to") ?? "";
  return to.startsWith("/") && !to.startsWith("//") && !to.startsWith("/\\") ? to : fallback;
}

export function answerCard(cp: ControlPlaneApi): Route {
  return {
    method: "POST",
    pattern: /^\/cards\/([^/]+)\/(\d+)\/answer$/,
    handle: (ctx) => {
      const space = decodeURIComponent(ctx.params[0] ?? "");
      const card = cp.answerCard(space, Number(ctx.params[1]), answerFromForm(ctx.form));
      return { json: { ok: true, state: card.state, number: card.number }, redirect: returnTo(ctx.form, "/") };
    },
  };
}
