// enclave conversations list | create | get | delete.
import { fail, type CommandContext } from "../context.js";
import { HELP } from "../help.js";
import { showConversation } from "../show.js";
import { say } from "../terminal-text.js";

export async function conversationsCommand({ sub, rest, opts, client }: CommandContext): Promise<void> {
  if (sub === "list" || sub === "") {
    const list = await client.listConversations();
    say(list.length ? list.map(showConversation).join("\n") : "no conversations");
  } else if (sub === "create") say(showConversation(await client.createConversation(rest[0] ?? "", opts.workspace ?? "")));
  else if (sub === "get") say(showConversation(await client.getConversation(rest[0] ?? fail("give a conversation id"))));
  else if (sub === "delete") {
    await client.deleteConversation(rest[0] ?? fail("give a conversation id"));
    say(`deleted ${rest[0]}`);
  } else fail(HELP.conversations ?? "");
}
