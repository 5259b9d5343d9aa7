// What a console route is, and what its handlers share: the page frame, the conversation named in the
// path, and a bound on how long a page waits for an agent.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ControlPlaneApi } from "../../control-plane-api.js";
import { EnclaveError } from "../../errors.js";
import type { Session } from "../access.js";
import type { SafeHtml } from "../html.js";
import { layout, type NavItem } from "../views/layout.js";
import { orTimeout } from "@enclave/proto/wait.js";

export interface RouteContext {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: string[];
  session: Session;
  /** The form of a POST (urlencoded). */
  form: URLSearchParams;
}

/** A POST answers JSON to the script, or redirects a form sent without it. */
export type Reply = { status?: number; html: string } | { status?: number; json: unknown; redirect?: string } | "streamed";

export interface Route {
  method: "GET" | "POST";
  pattern: RegExp;
  handle(ctx: RouteContext): Promise<Reply> | Reply;
}

/** How long a page or a POST waits for an agent to describe itself or start. */
export const DESCRIBE_TIMEOUT_MS = 15_000;

export function page(cp: ControlPlaneApi, ctx: RouteContext, title: string, nav: NavItem, events: string, body: SafeHtml): Reply {
  return { html: layout({ title, nav, csrf: ctx.session.csrf, events, openCards: cp.cards(undefined, false).length, body }) };
}

/** The conversation named by the path's first parameter; not_found when there is none. */
export function requireConversation(cp: ControlPlaneApi, ctx: RouteContext): string {
  const id = decodeURIComponent(ctx.params[0] ?? "");
  cp.getConversation(id);
  return id;
}

export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return orTimeout(p, ms, () => new EnclaveError("timeout", `${what} did not answer within ${ms / 1000} s`));
}
