// enclave tool call NAME [ARGS]: one call in the CLI's run, its output streamed as it comes, its
// permission cards asked about on this terminal. With --json nothing streams: the whole result is
// printed once, as one JSON object.
import { resultText } from "@enclave/client/control-plane-client.js";
import type { ToolResult } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { attachAsHuman } from "../attach-as-human.js";
import { type CommandContext, cliRun, usage } from "../context.js";
import type { Outcome } from "../exit-codes.js";
import { HELP } from "../help.js";
import { toolCallJson } from "../json-output.js";
import { SafeStream, say, sayError, sayJson } from "../terminal-text.js";

/** What a result adds to the output already shown as it streamed: its parts that do not repeat it. */
function afterStreamed(result: ToolResult): ToolResult {
  return { ...result, parts: result.parts.filter((p) => !p.repeatsStreamed) };
}

export async function toolCallCommand({ sub, rest, opts, client }: CommandContext): Promise<Outcome> {
  const tool = rest[0];
  if (sub !== "call" || !tool) usage(HELP.tool ?? "");
  const json = opts.json ?? false;
  const out = { stdout: new SafeStream(process.stdout), stderr: new SafeStream(process.stderr) };
  const run = await cliRun(client, opts);
  const detach = await attachAsHuman(client, run, tool, opts.yes ?? false);
  const result = await client
    .callTool(run.id, tool, rest[1] ?? "{}", (e) => {
      if (json) return;
      if (e.event?.$case === "output") {
        out[e.event.value.stream === "stderr" ? "stderr" : "stdout"].write(e.event.value.data);
      } else if (e.event?.$case === "progress") sayError(e.event.value);
    })
    .finally(detach);
  out.stdout.end();
  out.stderr.end();
  if (json) {
    sayJson(toolCallJson(result));
    return result.isError ? "refused" : "ok";
  }
  const body = resultText(afterStreamed(result));
  if (result.isError) {
    sayError(`enclave: ${result.errorCode}: ${body}`);
    return "refused";
  }
  if (body) say(body);
  return "ok";
}
