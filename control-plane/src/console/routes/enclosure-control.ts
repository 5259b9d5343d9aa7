// POST /conversations/ID/enclosure/start|stop|pause|resume: starts an enclosure with the form's limits,
// stops it, or pauses it with its memory (runsc; a sleep under runc) and resumes it. Audited with who did it.
import type { ControlPlaneApi } from "../../control-plane-api.js";
import { EnclaveError } from "../../errors.js";
import { consoleActor } from "./operator-hands.js";
import { requireConversation, type Route } from "./route.js";

function optionalNumber(form: URLSearchParams, name: string, what: string): number | undefined {
  const raw = (form.get(name) ?? "").trim();
  if (raw === "") return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new EnclaveError("invalid_arguments", `${what} \`${raw}\` is not a positive number`);
  return n;
}

export function enclosureControl(cp: ControlPlaneApi): Route {
  return {
    method: "POST",
    pattern: /^\/conversations\/([^/]+)\/enclosure\/(start|stop|pause|resume)$/,
    handle: async (ctx) => {
      const id = requireConversation(cp, ctx);
      const back = `/conversations/${encodeURIComponent(id)}`;
      if (ctx.params[1] === "stop") {
        const conv = await cp.stopEnclosure(id);
        return { json: { ok: true, placement: conv.placement }, redirect: back };
      }
      if (ctx.params[1] === "pause" || ctx.params[1] === "resume") {
        const by = consoleActor(ctx.session);
        const conv = ctx.params[1] === "pause" ? await cp.pauseEnclosure(id, { by }) : await cp.resumeEnclosure(id, { by });
        return {
          json: { ok: true, placement: conv.placement, state: conv.enclosure?.state ?? "none", lifecycle: conv.lifecycle?.sleep ? "sleeping" : "active" },
          redirect: back,
        };
      }
      const memoryMib = optionalNumber(ctx.form, "memory_mib", "memory");
      const conv = await cp.startEnclosure(
        id,
        {
          workspaceMode: ctx.form.get("workspace_mode") ?? "",
          memoryBytes: memoryMib === undefined ? undefined : Math.round(memoryMib * 1024 ** 2),
          cpus: optionalNumber(ctx.form, "cpus", "cpus"),
          pidsLimit: optionalNumber(ctx.form, "pids", "pids"),
          image: (ctx.form.get("image") ?? "").trim(),
          devcontainer: ctx.form.get("devcontainer") === "1",
        },
        { operator: !ctx.session.viewer || ctx.session.viewer.operator },
      );
      return { json: { ok: true, placement: conv.placement, image: conv.enclosure?.image ?? "" }, redirect: back };
    },
  };
}
