// enclave conversations list | create | get | delete | fork.
import { type CommandContext, usage } from "../context.js";
import { HELP } from "../help.js";
import { showConversation } from "../show.js";
import { say, sayJson } from "../terminal-text.js";

export async function conversationsCommand({ sub, rest, opts, client }: CommandContext): Promise<void> {
  const json = opts.json ?? false;
  if (sub === "list" || sub === "") {
    const list = await client.listConversations();
    if (json) sayJson(list);
    else say(list.length ? list.map(showConversation).join("\n") : "no conversations");
    return;
  }
  if (sub === "create" || sub === "get") {
    const c =
      sub === "create"
        ? await client.createConversation(rest[0] ?? "", opts.workspace ?? "")
        : await client.getConversation(rest[0] ?? usage("give a conversation id"));
    if (json) sayJson(c);
    else say(showConversation(c));
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
  usage(HELP.conversations ?? "");
}
