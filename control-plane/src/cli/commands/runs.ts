// enclave runs list | close: the open runs, and closing one (by default the CLI's kept run).
import { type CommandContext, usage } from "../context.js";
import { HELP } from "../help.js";
import { showRun } from "../show.js";
import { say, sayJson } from "../terminal-text.js";

export async function runsCommand({ sub, rest, opts, client }: CommandContext): Promise<void> {
  if (sub === "list" || sub === "") {
    const runs = await client.listRuns(opts.conversation ?? "");
    const now = Date.now();
    if (opts.json) return sayJson(runs);
    say(runs.length ? runs.map((r) => showRun(r, now)).join("\n") : "no open runs");
  } else if (sub === "close") {
    let id = rest[0];
    if (!id) {
      const conversation = opts.conversation ?? "default";
      const surface = opts.surface || "default";
      const kept = (await client.listRuns()).find((r) => r.cliCurrent && r.conversationId === conversation && r.surface === surface);
      if (!kept) {
        if (opts.json) return sayJson({ closed: null });
        say(`no run kept for conversation ${conversation}, surface ${surface}`);
        return;
      }
      id = kept.id;
    }
    await client.closeRun(id);
    if (opts.json) sayJson({ closed: id });
    else say(`closed ${id}`);
  } else usage(HELP.runs ?? "");
}
