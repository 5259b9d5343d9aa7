// The operator's hands on running things: `enclave calls list|cancel`, `enclave kernel stop`,
// `enclave host-agent stop`. Each needs an operator's token (a plain tenant's is refused with
// permission_denied) and is audited by the control plane with who did it.
import type { CallInFlight } from "@enclave/proto/gen/enclave/control/v1/control.js";
import { type CommandContext, usage } from "../context.js";
import { HELP } from "../help.js";
import { say, sayJson } from "../terminal-text.js";

function showCall(c: CallInFlight, now: number): string {
  const seconds = Math.max(0, Math.round((now - Number(c.startedAtMs)) / 1000));
  return `${c.callId}  ${c.tool}  conversation ${c.conversationId}  tenant ${c.tenant || "-"}  run ${c.runId}  ${c.origin}  ${seconds} s`;
}

export async function callsCommand({ sub, rest, opts, client }: CommandContext): Promise<void> {
  if (sub === "list" || sub === "") {
    if (rest.length) usage(HELP.calls ?? "");
    const calls = await client.listCallsInFlight(opts.conversation ?? "");
    if (opts.json) return sayJson(calls);
    const now = Date.now();
    say(calls.length ? calls.map((c) => showCall(c, now)).join("\n") : "no calls in flight");
  } else if (sub === "cancel") {
    const [id, ...more] = rest;
    if (!id || more.length) usage(HELP.calls ?? "");
    const call = await client.cancelCall(id);
    if (opts.json) return sayJson(call);
    say(`cancelled ${call.callId} (${call.tool} in conversation ${call.conversationId})`);
  } else usage(HELP.calls ?? "");
}

export async function kernelCommand({ sub, rest, opts, client }: CommandContext): Promise<void> {
  const [conversation, kernel, ...more] = rest;
  if (sub !== "stop" || !conversation || !kernel || more.length) usage(HELP.kernel ?? "");
  const byLanguage = kernel === "python" || kernel === "javascript";
  const stopped = await client.stopKernel(conversation, byLanguage ? { language: kernel } : { kernelId: kernel });
  if (opts.json) return sayJson(stopped);
  say(`stopped the ${stopped.language} kernel ${stopped.kernelId} (pid ${stopped.pid}) of conversation ${conversation}`);
}

export async function hostAgentCommand({ sub, rest, opts, client }: CommandContext): Promise<void> {
  const [conversation, ...more] = rest;
  if (sub !== "stop" || !conversation || more.length) usage(HELP["host-agent"] ?? "");
  const pid = await client.stopHostAgent(conversation);
  if (opts.json) return sayJson({ conversationId: conversation, pid });
  say(`stopped the host agent (pid ${pid}) of conversation ${conversation}`);
}
