// GET /cards/SPACE/N/arguments.json: a card's complete arguments, as a download that no browser renders.
import type { ControlPlaneApi } from "../../control-plane-api.js";
import type { Reply, Route } from "./route.js";

/** A download name made of safe characters only (a conversation id is already restricted; this is belt and braces). */
function cardArgumentsFileName(space: string, number: number): string {
  return `card-${space.replace(/[^A-Za-z0-9_-]/g, "_")}-${number}-arguments.json`;
}

export function cardArguments(cp: ControlPlaneApi): Route {
  return {
    method: "GET",
    pattern: /^\/cards\/([^/]+)\/(\d+)\/arguments\.json$/,
    handle: (ctx): Reply => {
      const space = decodeURIComponent(ctx.params[0] ?? "");
      const number = Number(ctx.params[1]);
      const { text } = cp.cardArgumentsText(space, number);
      ctx.res.writeHead(200, {
        "Content-Type": "application/json; charset=utf-8",
        "Content-Disposition": `attachment; filename="${cardArgumentsFileName(space, number)}"`,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'; sandbox",
      });
      ctx.res.end(text);
      return "streamed";
    },
  };
}
