// How the command line prints conversations, cards and runs. Text an agent wrote is printed under a
// prefix on every line, so no line of it can pass for a line of ours.
import type { Card, Conversation, Run } from "@enclave/proto/gen/enclave/control/v1/control.js";
import type { ControlPlaneClient } from "@enclave/client/control-plane-client.js";

export function showConversation(c: Conversation): string {
  const e = c.enclosure;
  const where = e
    ? `enclosure ${e.containerId.slice(0, 12)} (${e.state}${e.detail ? `: ${e.detail}` : ""}; image ${e.image}; ${e.runtime || "runc"}; ${e.workspaceMode}; ` +
      `${(e.limits?.memoryBytes ?? 0) / 1024 ** 2} MiB, ${e.limits?.cpus} CPU, ${e.limits?.pids} pids` +
      `${e.limits?.diskBytes ? `, disk ${e.limits.diskBytes / 1024 ** 2} MiB` : ""}` +
      `${e.relaxations.length ? `; relaxed: ${e.relaxations.join(", ")}` : ""}` +
      `${e.state === "paused" ? `; memory kept${e.checkpointBytes ? ` in ${(e.checkpointBytes / 1024 ** 2).toFixed(1)} MiB` : ""}` : ""}` +
      `${e.pauseTimings ? `; ${e.pauseTimings}` : ""})`
    : "host";
  const allow = c.egress?.allow ?? [];
  const egress = allow.length
    ? `  egress: ${allow.map((d) => `${d.host || (d.cidr.includes(":") && d.ports.length ? `[${d.cidr}]` : d.cidr)}${d.ports.length ? `:${d.ports.join(",")}` : ""}`).join(" ")}`
    : "";
  return `${c.id}  ${where}  ${c.workspacePath}${egress}\n  ${showLifecycle(c)}`;
}

/** Whether it sleeps (why, since when, what was kept), and its idle timeout and maximum lifetime. */
export function showLifecycle(c: Conversation): string {
  const limits = `idle ${c.idleTimeoutSeconds ? `${c.idleTimeoutSeconds} s` : "never"}, lifetime ${c.maxLifetimeSeconds ? `${c.maxLifetimeSeconds} s` : "unlimited"}`;
  const s = c.sleep;
  if (c.lifecycleState !== "sleeping" || !s) return `active (${limits})`;
  return (
    `sleeping since ${new Date(c.sleptAtMs).toISOString()} (${s.reason}; ${s.placement}${s.image ? ` ${s.image} ${s.runtime}` : ""}; ` +
    `${s.mechanism}, memory ${s.memoryKept ? "kept" : "not kept"}; ${limits})`
  );
}

/** Every line of an agent's text under the same prefix, so no line of it can pass for a line of ours. */
function prefixed(prefix: string, text: string, rest = prefix): string[] {
  return text.split("\n").map((l, i) => `${i === 0 ? prefix : rest}${l}`);
}

export function showCard(c: Card): string {
  const head = `#${c.number} ${c.conversationId} ${c.kind} ${c.state}${c.state === "open" ? ` (expires ${new Date(c.expiresAtMs).toISOString()})` : ""}`;
  const lines = [head, ...prefixed("  ", c.question, "  > ")];
  if (c.context) lines.push(...prefixed("  | ", c.context));
  if (c.options.length) {
    lines.push(`  options (${c.multiSelect ? "choose any" : "choose one"}):`);
    for (const o of c.options) lines.push(...prefixed("    - ", `${o.label}${o.description ? ` — ${o.description}` : ""}`, "      "));
  }
  if (c.allowFreeText) lines.push("  free text allowed (--text)");
  if (c.answer)
    lines.push(...prefixed("  answer: ", c.answer.skip ? "skipped" : [...c.answer.selected, c.answer.freeText].filter(Boolean).join(", "), "  answer> "));
  return lines.join("\n");
}

/** The complete arguments of an open permission card, pretty-printed, for --full. */
export async function fullArguments(client: ControlPlaneClient, c: Card): Promise<string> {
  if (c.kind !== "permission") return "";
  if (c.state !== "open") return "  complete arguments: kept only while the card is open";
  let text: string;
  try {
    text = await client.cardArgumentsText(c.conversationId, c.number);
  } catch (err) {
    return `  complete arguments: could not be read (${(err as Error).message})`;
  }
  let pretty = text;
  try {
    pretty = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // Shown as stored when it is not JSON.
  }
  return [`  complete arguments (${text.length} characters):`, ...pretty.split("\n").map((l) => `    ${l}`)].join("\n");
}

export async function showCardFull(client: ControlPlaneClient, c: Card, full: boolean): Promise<string> {
  const more = full ? await fullArguments(client, c) : "";
  return more ? `${showCard(c)}\n${more}` : showCard(c);
}

export function showRun(r: Run, now: number): string {
  const flags = [r.cli ? (r.cliCurrent ? "cli (kept)" : "cli (replaced)") : "api", `approval ${r.approvalPolicy}`];
  if (r.vibeMode) flags.push("vibe");
  if (r.strictResolve) flags.push("strict resolve");
  if (r.pendingActions) flags.push(`${r.pendingActions} staged change${r.pendingActions === 1 ? "" : "s"} awaiting resolve`);
  if (r.callsInFlight) flags.push(`${r.callsInFlight} call${r.callsInFlight === 1 ? "" : "s"} in flight`);
  else if (r.idleExpiresAtMs) flags.push(`closes if unused in ${Math.max(0, Math.round((r.idleExpiresAtMs - now) / 1000))} s`);
  return `${r.id}  ${r.conversationId}  ${r.surface}  ${flags.join(", ")}`;
}

/** A card and, for a permission card, its complete arguments, so nobody allows what they could not see. */
export async function showCardWithArguments(client: ControlPlaneClient, c: Card): Promise<string> {
  if (!c.argumentsTruncated) return showCard(c);
  return `${showCard(c)}\n${await fullArguments(client, c)}`;
}
