// enclave enclosure start | stop | pause | resume ID.
import { type CommandContext, usage } from "../context.js";
import { HELP } from "../help.js";
import { showConversation } from "../show.js";
import { say, sayError, sayJson } from "../terminal-text.js";

/** A limit given on the command line: a positive number (0 would mean "the default" on the wire). */
function limitOption(name: string, raw: string | undefined): number {
  if (raw === undefined) return 0;
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(n) || n <= 0) usage(`${name} \`${raw}\` is not a positive number`);
  return n;
}

export async function enclosureCommand({ sub, rest, opts, client }: CommandContext): Promise<void> {
  const id = rest[0] ?? usage(HELP.enclosure ?? "");
  if (sub === "start") {
    sayError("starting enclosure …");
    const c = await client.startEnclosure(id, {
      workspaceMode: opts["workspace-mode"] ?? "",
      memoryBytes: limitOption("--memory", opts.memory),
      cpus: limitOption("--cpus", opts.cpus),
      pidsLimit: limitOption("--pids", opts.pids),
      diskLimitBytes: limitOption("--disk", opts.disk),
      runtime: opts.runtime ?? "",
      image: opts.image ?? "",
      devcontainer: opts.devcontainer ?? false,
    });
    if (opts.json) return sayJson(c);
    say(showConversation(c));
    for (const line of c.enclosure?.notes ?? []) say(`  note: ${line}`);
  } else if (sub === "stop") {
    const c = await client.stopEnclosure(id, { force: opts.force ?? false });
    if (opts.json) return sayJson(c);
    say(showConversation(c));
    for (const line of c.notCopiedBack) say(`  not copied back: ${line}`);
  } else if (sub === "pause") {
    const c = await client.pauseEnclosure(id);
    if (opts.json) return sayJson(c);
    say(showConversation(c));
    for (const line of c.enclosure?.pauseNotes ?? []) say(`  note: ${line}`);
  } else if (sub === "resume") {
    const c = await client.resumeEnclosure(id);
    if (opts.json) return sayJson(c);
    say(showConversation(c));
  } else usage(HELP.enclosure ?? "");
}
