// enclave enclosure start | stop ID.
import { fail, type CommandContext } from "../context.js";
import { HELP } from "../help.js";
import { showConversation } from "../show.js";
import { say, sayError } from "../terminal-text.js";

export async function enclosureCommand({ sub, rest, opts, client }: CommandContext): Promise<void> {
  const id = rest[0] ?? fail(HELP.enclosure ?? "");
  if (sub === "start") {
    sayError("starting enclosure …");
    const c = await client.startEnclosure(id, {
      workspaceMode: opts["workspace-mode"] ?? "",
      memoryBytes: Number(opts.memory ?? 0),
      cpus: Number(opts.cpus ?? 0),
      pidsLimit: Number(opts.pids ?? 0),
      diskLimitBytes: Number(opts.disk ?? 0),
      runtime: opts.runtime ?? "",
      image: opts.image ?? "",
      devcontainer: opts.devcontainer ?? false,
    });
    say(showConversation(c));
    for (const line of c.enclosure?.notes ?? []) say(`  note: ${line}`);
  } else if (sub === "stop") {
    const c = await client.stopEnclosure(id);
    say(showConversation(c));
    for (const line of c.notCopiedBack) say(`  not copied back: ${line}`);
  } else fail(HELP.enclosure ?? "");
}
