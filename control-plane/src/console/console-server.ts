// The operator console's HTTP server, served by the control plane's own process: checks the site
// the browser says a request came from, the Host, the access token or session, and for POSTs the
// origin and CSRF token; then runs the route and turns an EnclaveError into a page or JSON that says
// what happened. Every page carries a strict Content-Security-Policy (own script and stylesheet only).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ControlPlaneApi } from "../control-plane-api.js";
import { asEnclaveError, EnclaveError, type EnclaveErrorCode } from "../errors.js";
import { ConsoleAccess, foreignSiteRefusal, type Session } from "./access.js";
import { type ConsoleSettings, consoleUrl, isLoopbackHost } from "./console-settings.js";
import { html } from "./html.js";
import { consoleRoutes, type Reply, type Route } from "./routes.js";
import { type Asset, loadAssets } from "./static-assets.js";
import { errorPage } from "./views/layout.js";
import { tenantView } from "./tenant-view.js";
import { tenantPausedError } from "../tenants/tenant-pause-refusal.js";
import type { Tenant } from "../tenants/tenant.js";

export interface ServingConsole {
  /** The address to open (with ?token= when the token was generated here). */
  url: string;
  host: string;
  port: number;
  tokenRequired: boolean;
  close(): Promise<void>;
}

const MAX_FORM_BYTES = 256 * 1024;

const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  // same-origin, not no-referrer: browsers then send Origin on same-origin POSTs, which the CSRF check reads.
  "Referrer-Policy": "same-origin",
};

const HTTP_STATUS: Partial<Record<EnclaveErrorCode, number>> = {
  invalid_arguments: 400,
  not_found: 404,
  unknown_tool: 404,
  already_exists: 409,
  failed_precondition: 409,
  enclosure_dead: 409,
  approval_refused: 403,
  outside_workspace: 403,
  too_large: 413,
  placement_unavailable: 503,
  agent_lost: 503,
  timeout: 504,
  quota_exceeded: 429,
  tenant_paused: 403,
  permission_denied: 403,
};

function wantsJson(req: IncomingMessage): boolean {
  return (req.headers.accept ?? "").includes("application/json");
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, "Content-Type": type, "Cache-Control": "no-store", ...headers });
  res.end(body);
}

function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim() ?? "";
    if (type !== "application/x-www-form-urlencoded" && type !== "") {
      req.resume();
      reject(Object.assign(new Error(`send the form as application/x-www-form-urlencoded, not ${type}`), { httpStatus: 415 }));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_FORM_BYTES) {
        reject(Object.assign(new Error(`the form is over ${MAX_FORM_BYTES / 1024} KiB`), { httpStatus: 413 }));
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => resolve(new URLSearchParams(Buffer.concat(chunks).toString("utf8"))));
    req.on("error", reject);
  });
}

function tokenForm(path: string) {
  return html`<form method="get" action="${path}" class="inline-form"><label>access token <input type="password" name="token" autocomplete="off" autofocus required></label><button type="submit" class="primary">Open</button></form>`;
}

export async function serveConsole(cp: ControlPlaneApi, settings: ConsoleSettings): Promise<ServingConsole> {
  if (!settings.token && !settings.operators && !isLoopbackHost(settings.host)) {
    throw new EnclaveError(
      "invalid_arguments",
      `a console on ${settings.host} (not loopback) needs an access token: set ENCLAVE_CONSOLE_TOKEN, or let \`enclave serve\` generate one`,
    );
  }
  const routes: Route[] = consoleRoutes(cp);
  // A tenant's session gets routes over its tenant's view of the control plane (console/tenant-view.ts),
  // made per request (a few closures) so the tenant's quotas are as the token file says now.
  const routesFor = (viewer: Tenant | undefined): Route[] => (!viewer || viewer.operator ? routes : consoleRoutes(tenantView(cp, viewer)));
  const assets: Map<string, Asset> = loadAssets();
  let access: ConsoleAccess | undefined;

  const fail = (req: IncomingMessage, res: ServerResponse, status: number, title: string, message: string, path = "/"): void => {
    if (wantsJson(req)) send(res, status, "application/json; charset=utf-8", JSON.stringify({ error: message }));
    else send(res, status, "text/html; charset=utf-8", errorPage(status, title, message, status === 401 ? tokenForm(path) : undefined));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://console.invalid");
    const method = req.method ?? "GET";
    const foreign = foreignSiteRefusal(req);
    if (foreign) return fail(req, res, 403, "Refused", foreign);
    const asset = method === "GET" ? assets.get(url.pathname) : undefined;
    if (asset) {
      // Not secret (no data in them), so also served to the token form.
      if (req.headers["if-none-match"] === asset.etag) return void send(res, 304, asset.type, "", { ETag: asset.etag, "Cache-Control": "no-cache" });
      return void send(res, 200, asset.type, asset.body, { ETag: asset.etag, "Cache-Control": "no-cache" });
    }
    if (url.pathname === "/favicon.ico") return void send(res, 204, "image/x-icon", "");
    const decision = (access as ConsoleAccess).check(req, url);
    if (!decision.ok) return fail(req, res, decision.status, decision.status === 401 ? "Access token needed" : "Refused", decision.reason, url.pathname);
    const session: Session = decision.session;
    const cookie: Record<string, string> = session.setCookie ? { "Set-Cookie": session.setCookie } : {};
    if (decision.cleanUrl && method === "GET") return void send(res, 303, "text/plain; charset=utf-8", "", { ...cookie, Location: decision.cleanUrl });

    // A paused tenant's session is refused everything, as its API calls are.
    const pause = session.viewer && !session.viewer.operator ? cp.tenantPause(session.viewer.name) : undefined;
    if (pause && session.viewer) return fail(req, res, 403, "Tenant paused", tenantPausedError(session.viewer.name, pause).message);
    const mine = routesFor(session.viewer);
    const route = mine.find((r) => r.method === method && r.pattern.test(url.pathname));
    if (!route) {
      const other = mine.some((r) => r.pattern.test(url.pathname));
      return fail(
        req,
        res,
        other ? 405 : 404,
        other ? "Method not allowed" : "Not found",
        other ? `${method} is not allowed on ${url.pathname}` : `no page ${url.pathname}`,
      );
    }
    let form = new URLSearchParams();
    if (method === "POST") {
      try {
        form = await readForm(req);
      } catch (err) {
        return fail(req, res, (err as { httpStatus?: number }).httpStatus ?? 400, "Bad request", (err as Error).message);
      }
      const allowed = (access as ConsoleAccess).checkPost(req, session, decision.viaBearer, form.get("_csrf") ?? undefined);
      if (!allowed.ok) return fail(req, res, 403, "Refused", allowed.reason);
    }
    const params = (route.pattern.exec(url.pathname) ?? []).slice(1);
    let reply: Reply;
    try {
      if (cookie["Set-Cookie"]) res.setHeader("Set-Cookie", cookie["Set-Cookie"]);
      reply = await route.handle({ req, res, url, params, session, form });
    } catch (thrown) {
      const err = asEnclaveError(thrown);
      if (res.headersSent) return void res.destroy(err);
      return fail(req, res, HTTP_STATUS[err.code] ?? 500, "Could not do that", err.message);
    }
    if (reply === "streamed") return;
    if ("html" in reply) return void send(res, reply.status ?? 200, "text/html; charset=utf-8", reply.html, cookie);
    if (reply.redirect && !wantsJson(req)) return void send(res, 303, "text/plain; charset=utf-8", "", { ...cookie, Location: reply.redirect });
    send(res, reply.status ?? 200, "application/json; charset=utf-8", JSON.stringify(reply.json), cookie);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, "text/plain; charset=utf-8", `console error: ${(err as Error).message}`);
      else res.destroy();
    });
  });
  // Event streams stay open: no request timeout on them, but headers must arrive promptly.
  server.requestTimeout = 0;
  server.headersTimeout = 20_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `the console cannot listen on ${settings.host}:${settings.port}: ${err.code === "EADDRINUSE" ? "the port is in use" : err.message} (set ENCLAVE_CONSOLE_LISTEN or --console, or "off")`,
        ),
      ),
    );
    server.listen(settings.port, settings.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  access = new ConsoleAccess(settings.token, port, isLoopbackHost(settings.host), settings.operators);
  // A revoked tenant's token ends the event streams its pages hold open, not only its next request.
  const stopRevoking = settings.operators?.onRevoked((ids) => cp.streams.revoke(ids));
  return {
    url: consoleUrl(settings, port),
    host: settings.host,
    port,
    tokenRequired: access.tokenRequired,
    close: () =>
      new Promise<void>((resolve) => {
        stopRevoking?.();
        server.close(() => resolve());
        // Open event streams would keep close() waiting forever.
        server.closeAllConnections();
      }),
  };
}
