// enclave tool call NAME [ARGS]: one call in the CLI's run, its output streamed as it comes, its
// permission cards asked about on this terminal.
import { resultText } from "../../client/control-plane-client.js";
import { attachAsHuman } from "../attach-as-human.js";
import { cliRun, fail, type CommandContext } from "../context.js";
import { HELP } from "../help.js";
import { SafeStream, say, sayError } from "../terminal-text.js";

/**
 * What a result adds to the output already shown as it streamed. The result of a streaming tool
 * (exec, eval, vibe_wait) repeats that output before its own lines, so the repeat is cut by prefix.
 */
function afterStreamed(body: string, shown: string): string {
  let rest = body;
  if (shown && rest.startsWith(shown)) rest = rest.slice(shown.length);
  else if (shown && rest.startsWith(shown.trimEnd())) rest = rest.slice(shown.trimEnd().length);
  return rest.replace(/^\n+/, "");
}

export async function toolCallCommand({ sub, rest, opts, client }: CommandContext): Promise<void> {
  const tool = rest[0];
  if (sub !== "call" || !tool) fail(HELP.tool ?? "");
  const streamed: Buffer[] = [];
  const out = { stdout: new SafeStream(process.stdout), stderr: new SafeStream(process.stderr) };
  const run = await cliRun(client, opts);
  const detach = await attachAsHuman(client, run, tool, opts.yes ?? false);
  const result = await client
    .callTool(run.id, tool, rest[1] ?? "{}", (e) => {
      if (e.event?.$case === "output") {
        streamed.push(e.event.value.data);
        out[e.event.value.stream === "stderr" ? "stderr" : "stdout"].write(e.event.value.data);
      } else if (e.event?.$case === "progress") sayError(e.event.value);
    })
    .finally(detach);
  out.stdout.end();
  out.stderr.end();
  const body = afterStreamed(resultText(result), Buffer.concat(streamed).toString("utf8"));
  if (result.isError) fail(`${result.errorCode}: ${body}`);
  if (body) say(body);
}
