// enclave conversations list | create | get (or show) | delete | lifecycle | egress | fork.
import { type CommandContext, usage } from "../context.js";
import { type EgressDestination, parseDestinationText } from "../../egress/egress-policy.js";
import { EnclaveError } from "../../errors.js";
import { HELP } from "../help.js";
import { showConversation } from "../show.js";
import { showUsage } from "../show-usage.js";
import { say, sayJson } from "../terminal-text.js";

/** Seconds given on the command line: a whole number of 0 or more (0: the server's default). */
function secondsOption(name: string, raw: string | undefined): number {
  if (raw === undefined) return 0;
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isSafeInteger(n) || n < 0) usage(`${name} \`${raw}\` is not a whole number of seconds (0 for the server's default)`);
  return n;
}

export async function conversationsCommand({ sub, rest, opts, client }: CommandContext): Promise<void> {
  const json = opts.json ?? false;
  if (sub === "list" || sub === "") {
    const list = await client.listConversations();
    if (json) sayJson(list);
    else say(list.length ? list.map(showConversation).join("\n") : "no conversations");
    return;
  }
  const lifecycle = { idleTimeoutSeconds: secondsOption("--idle", opts.idle), maxLifetimeSeconds: secondsOption("--lifetime", opts.lifetime) };
  if (sub === "create" || sub === "get" || sub === "show" || sub === "lifecycle") {
    const c =
      sub === "create"
        ? await client.createConversation(rest[0] ?? "", opts.workspace ?? "", { lifecycle })
        : sub === "lifecycle"
          ? await client.setConversationLifecycle(rest[0] ?? usage("give a conversation id"), lifecycle)
          : await client.getConversation(rest[0] ?? usage("give a conversation id"));
    if (json) sayJson(c);
    else say([showConversation(c), ...(c.usage ? showUsage(c.usage) : [])].join("\n"));
    return;
  }
  if (sub === "fork") {
    const source = rest[0] ?? usage("give the conversation to fork, and optionally the new one's id");
    const c = await client.forkConversation(source, rest[1] ?? "", { workspaceOnly: opts["workspace-only"] ?? false });
    if (json) sayJson(c);
    else say([`forked ${source} into ${c.id}`, showConversation(c), ...c.notCopiedBack.map((l) => `  not copied: ${l}`)].join("\n"));
    return;
  }
  if (sub === "delete") {
    const id = rest[0] ?? usage("give a conversation id");
    await client.deleteConversation(id);
    if (json) sayJson({ deleted: id });
    else say(`deleted ${id}`);
    return;
  }
  if (sub === "egress") {
    const [id = "", ...given] = rest;
    if (!id || given.length === 0) usage(HELP.conversations ?? "");
    let allow: EgressDestination[] = [];
    try {
      if (!(given.length === 1 && given[0] === "none")) allow = given.map((d) => parseDestinationText(d, "destination"));
    } catch (err) {
      if (err instanceof EnclaveError) usage(err.message);
      throw err;
    }
    const c = await client.setConversationEgress(
      id,
      allow.map((d) => ({ host: d.host ?? "", cidr: d.cidr ?? "", ports: d.ports })),
    );
    if (json) sayJson(c);
    else say(showConversation(c));
    return;
  }
  usage(HELP.conversations ?? "");
}
