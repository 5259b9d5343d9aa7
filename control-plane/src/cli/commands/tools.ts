// enclave tools list: the tools the CLI's run sees.
import { type CommandContext, cliRun, usage } from "../context.js";
import { HELP } from "../help.js";
import { say, sayError, sayJson } from "../terminal-text.js";

export async function toolsCommand({ sub, opts, client }: CommandContext): Promise<void> {
  if (sub !== "list" && sub !== "") usage(HELP.tools ?? "");
  const run = await cliRun(client, opts);
  const res = await client.listTools(run.id);
  if (opts.json) {
    sayJson(
      res.tools.map((t) => ({
        ...t,
        inputSchema: JSON.parse(t.inputSchemaJson) as unknown,
        detailsSchema: t.detailsSchemaJson ? (JSON.parse(t.detailsSchemaJson) as unknown) : null,
      })),
    );
  } else for (const t of res.tools) say(`${t.name.padEnd(12)} ${t.tier.padEnd(6)} ${t.description}`);
  for (const f of res.customToolFailures) sayError(`custom tool module ${f.file} skipped: ${f.reason}`);
}
