// What a harness may hold Enclave to, rendered from the code itself so the docs' list cannot drift:
// every tool's name, tier, resource and argument names (with their fixed values), the fixed result
// texts a harness may match, every error code with its gRPC status, and the tool host's verdicts. A
// test compares docs/reference/harness-contract.md with this rendering.
import { status } from "@grpc/grpc-js";
import { ENCLAVE_ERROR_CODES, ERROR_CODE_TRAILER, EnclaveError } from "../errors.js";
import { NO_PENDING_ACTION } from "../tools/ast/resolve.js";
import type { Tool } from "../tools/tool.js";

export const CONTRACT_START =
  "<!-- harness-contract:start (generated from the code; UPDATE_HARNESS_CONTRACT=1 npx vitest run test/unit/harness-contract.test.ts rewrites it) -->";
export const CONTRACT_END = "<!-- harness-contract:end -->";

type Schema = {
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  oneOf?: Schema[];
  anyOf?: Schema[];
};

function argument(name: string, s: Schema, required: boolean): string {
  const values = s.enum ? `: ${s.enum.map(String).join(" \\| ")}` : "";
  return `\`${name}${required ? "" : "?"}${values}\``;
}

function argumentsOf(s: Schema, skip = ""): string {
  const required = new Set(s.required ?? []);
  const args = Object.entries(s.properties ?? {})
    .filter(([n]) => n !== skip)
    .map(([n, p]) => argument(n, p, required.has(n)));
  return args.length ? args.join(", ") : "(none)";
}

/** One table row per tool; a tool whose arguments depend on an operation gets one line per operation. */
function toolRows(tools: Tool[]): string[] {
  return tools.map((t) => {
    const s = t.inputSchema as Schema;
    const variants = s.oneOf ?? s.anyOf;
    let args: string;
    if (variants) {
      args = variants
        .map((v) => {
          const [key, discriminator] = Object.entries(v.properties ?? {}).find(([, p]) => p.const !== undefined) ?? [];
          return key && discriminator ? `${key} \`${String(discriminator.const)}\`: ${argumentsOf(v, key)}` : argumentsOf(v);
        })
        .join("<br>");
    } else args = argumentsOf(s);
    return `| \`${t.name}\` | ${t.tier} | ${t.resource} | ${args} |`;
  });
}

/** Texts a harness may match exactly (placeholders in angle brackets). */
const RESULT_TEXTS: readonly [string, string][] = [
  ["resolve, applied", "`Applied: <label>`, then what the action's apply returned"],
  [
    "resolve, discarded",
    "`<label>`, then what its reject returned, which replaces the default `Discarded` (kept when there is no reject or it returned undefined)",
  ],
  ["resolve with nothing pending", `\`${NO_PENDING_ACTION}\` (error \`failed_precondition\`)`],
  ["ListTools while a change is staged", "`required_next_tool` is `resolve`"],
  [
    "every tool result while a change is staged",
    "`pending.required_next_tool` is `resolve`; `pending.pending_ids` and `pending.labels` list the staged changes, most recent first (all empty when nothing is pending)",
  ],
  [
    "a tool refused while a change is staged (write and exec tools; every tool but resolve in a run opened with `strict_resolve`)",
    '`` `<tool>` is refused while a staged change is pending (<id>: <label>). Call `resolve` first (action "apply" or "discard"), then call `<tool>` again. `` (error `failed_precondition`)',
  ],
  [
    "the first call after the conversation's placement slept (idle timeout, maximum lifetime, tenant paused) with its memory lost",
    "a first text part `placement_slept: this conversation was put to sleep …` before the call's own result; the call itself ran on a fresh placement",
  ],
  [
    "the first call after a control-plane restart took a host agent",
    "a first text part `host_agent_lost: the control plane restarted …` before the call's own result",
  ],
  ["resolve on a custom tool's change staged before a restart", "`<id> (<tool>: <label>) was lost: …` (error `pending_action_lost`); the change is dropped"],
  ["vibe_wait that timed out", "`Waited <n> s: <report>`, then `Call vibe_wait again to keep waiting, or vibe_kill to stop it.`"],
  ["a cell's call the harness denied", "``the harness denied `<tool>`: <reason>`` (error `harness_denied`)"],
  ["a cell's call to a harness tool that failed", "`` `<tool>` failed in the harness: <message> `` (error `failed`)"],
  ["tool() in a cell", "raises `ToolError` with `.code` (the error code) and `.message` (the text)"],
];

/** A details schema's top-level fields, `?` marking those a result may leave out; a union lists its variants' fields once each. */
function detailFields(s: Schema): string {
  const variants = s.oneOf ?? s.anyOf ?? [s];
  const seen = new Map<string, boolean>();
  for (const v of variants) {
    const required = new Set(v.required ?? []);
    for (const name of Object.keys(v.properties ?? {})) seen.set(name, (seen.get(name) ?? true) && required.has(name) && variants.length === 1);
  }
  return [...seen].map(([n, req]) => `\`${n}${req ? "" : "?"}\``).join(", ");
}

function detailRows(tools: Tool[]): string[] {
  return tools.filter((t) => t.detailsSchema).map((t) => `| \`${t.name}\` | ${detailFields(t.detailsSchema as Schema)} |`);
}

function statusName(code: number): string {
  return Object.entries(status).find(([, v]) => v === code)?.[0] ?? String(code);
}

export function renderHarnessContract(tools: Tool[]): string {
  const sorted = [...tools].sort((a, b) => a.name.localeCompare(b.name));
  return [
    CONTRACT_START,
    "",
    "**Tools** (as every run with every resource sees them; `?` marks an optional argument, `a | b` its values):",
    "",
    "| tool | tier | resource | arguments |",
    "| --- | --- | --- | --- |",
    ...toolRows(sorted),
    "",
    "**Result details** (`ToolResult.details_json`, a JSON object beside the text; each tool's JSON Schema is `ToolInfo.details_schema_json` and `proto/tool-schemas.json`; absent on a refusal):",
    "",
    "| tool | fields |",
    "| --- | --- |",
    ...detailRows(sorted),
    "",
    "**Fixed result texts**:",
    "",
    ...RESULT_TEXTS.map(([when, what]) => `- ${when}: ${what}`),
    "",
    `**Error codes** (a tool result's \`error_code\`, a call's \`${ERROR_CODE_TRAILER}\` trailer, a cell's \`ToolError.code\`; with the gRPC status an RPC fails with):`,
    "",
    ENCLAVE_ERROR_CODES.map((c) => `\`${c}\` (${statusName(new EnclaveError(c, "").grpcCode)})`).join(", "),
    "",
    "**Tool host** (`ConnectToolHost`): tiers `read` | `write` | `exec` (empty: `exec`); interception verdicts `allow` | `deny` | `answer`; a cell lists what it may call with `tools()` (`name`, `tier`, `description`, `input_schema`).",
    "",
    CONTRACT_END,
  ].join("\n");
}
