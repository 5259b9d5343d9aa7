// A harness's tool host for one run: the tools it declared (callable from the run's kernel cells
// like Enclave's own, through the same dispatcher) and, when it asked to intercept, a say over every
// bridge call to Enclave's tools. Calls and offers go down the host's stream with an id; the answer
// comes back with that id. Each waits at most its limit, ends when the cell is interrupted (the
// harness is told to cancel) and fails with harness_lost when the stream goes away.
import { randomBytes } from "node:crypto";
import type {
  ContentPart as WirePart,
  HarnessTool,
  HarnessToolResult,
  InterceptDecision,
  ToolHostCommand,
} from "@enclave/proto/gen/enclave/control/v1/control.js";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import { checkJsonShape } from "../tools/argument-shape.js";
import { compileArgumentSchema } from "../tools/custom/argument-schema.js";
import type { ContentPart, Tool, ToolContext, ToolOutput } from "../tools/tool.js";
import type { Tier } from "../model/tier.js";
import { plural } from "../text/wording.js";

const NAME = /^[a-z][a-z0-9_]{0,63}$/;
const TIERS: readonly Tier[] = ["read", "write", "exec"];
/** The tier of a harness tool that declares none: the most cautious, as for custom tools. */
export const DEFAULT_HARNESS_TOOL_TIER: Tier = "exec";

export type InterceptVerdict = { verdict: "allow" } | { verdict: "deny"; reason: string } | { verdict: "answer"; output: ToolOutput };

interface Waiter {
  kind: "call" | "offer";
  settle(answer: HarnessToolResult | InterceptDecision | EnclaveError): void;
}

function wireParts(parts: WirePart[]): ContentPart[] {
  const out: ContentPart[] = [];
  for (const p of parts) {
    const v = p.part;
    if (v?.$case === "text") out.push({ type: "text", text: v.value });
    else if (v?.$case === "image") {
      if (!v.value.mimeType.startsWith("image/"))
        throw new EnclaveError("failed", `the harness answered with an image part whose mime type \`${v.value.mimeType.slice(0, 80)}\` is not image/*`);
      out.push({ type: "image", mimeType: v.value.mimeType, data: Buffer.from(v.value.data) });
    } else if (v?.$case === "rich") out.push({ type: "rich", mimeType: v.value.mimeType, text: v.value.text });
  }
  return out;
}

/** What a HarnessToolResult means as a call's output: its parts, or the harness's error. */
function outputOf(tool: string, r: HarnessToolResult): ToolOutput {
  if (r.isError) {
    const why = r.errorMessage.trim() || "the harness reported an error without a message";
    return { parts: [{ type: "text", text: `\`${tool}\` failed in the harness: ${why}` }], error: { code: "failed" } };
  }
  return { parts: wireParts(r.parts), audit: { detail: "answered by the harness" } };
}

function failure(err: EnclaveError): ToolOutput {
  return { parts: [{ type: "text", text: err.message }], error: { code: err.code } };
}

export class ToolHost {
  readonly tools: Tool[];
  private readonly waiting = new Map<string, Waiter>();
  private readonly prefix = randomBytes(4).toString("hex");
  private seq = 0;
  private gone = false;

  /**
   * Throws invalid_arguments, naming the tool and what is wrong, for a declaration that cannot be
   * used: a bad name or tier, a name Enclave already uses (`taken`), a schema that is not an object
   * JSON Schema.
   */
  constructor(
    readonly id: string,
    readonly runId: string,
    declared: HarnessTool[],
    readonly intercepts: boolean,
    private readonly send: (command: ToolHostCommand) => void,
    taken: (name: string) => boolean,
  ) {
    if (declared.length > LIMITS.toolHostMaxTools) {
      throw new EnclaveError("invalid_arguments", `a tool host may declare at most ${LIMITS.toolHostMaxTools} tools; this one declares ${declared.length}`);
    }
    const seen = new Set<string>();
    this.tools = declared.map((d) => {
      const tool = this.declare(d, taken);
      if (seen.has(tool.name)) throw new EnclaveError("invalid_arguments", `harness tool \`${tool.name}\` is declared twice`);
      seen.add(tool.name);
      return tool;
    });
  }

  private declare(d: HarnessTool, taken: (name: string) => boolean): Tool {
    const bad = (why: string): never => {
      throw new EnclaveError("invalid_arguments", `harness tool \`${d.name.slice(0, 80)}\`: ${why}`);
    };
    if (!NAME.test(d.name)) bad("a name is lower-case letters, digits and _, starting with a letter, at most 64 characters");
    if (taken(d.name)) bad("Enclave has a tool of that name; give the harness's tool another name");
    const tier = (d.tier || DEFAULT_HARNESS_TOOL_TIER) as Tier;
    if (!TIERS.includes(tier)) bad(`tier \`${d.tier.slice(0, 40)}\` is not one of ${TIERS.join(", ")} (empty for ${DEFAULT_HARNESS_TOOL_TIER})`);
    if (!d.description.trim()) bad("a description is required (it is what tools() shows a cell)");
    if (d.description.length > LIMITS.toolHostDescriptionMaxChars) bad(`the description is over ${LIMITS.toolHostDescriptionMaxChars} characters`);
    if (Buffer.byteLength(d.inputSchemaJson) > LIMITS.toolHostSchemaMaxBytes) bad(`input_schema_json is over ${LIMITS.toolHostSchemaMaxBytes} bytes`);
    let schema: unknown;
    try {
      checkJsonShape("input_schema_json", d.inputSchemaJson);
      schema = d.inputSchemaJson.trim() === "" ? { type: "object" } : JSON.parse(d.inputSchemaJson);
    } catch (err) {
      if (err instanceof EnclaveError) return bad(err.message);
      return bad(`input_schema_json is not valid JSON: ${(err as Error).message}`);
    }
    if (typeof schema !== "object" || schema === null || Array.isArray(schema) || (schema as { type?: unknown }).type !== "object") {
      return bad('input_schema_json must be a JSON Schema with type "object"');
    }
    const inputSchema = schema as Record<string, unknown>;
    let validate: Tool["validate"];
    try {
      validate = compileArgumentSchema(d.name, inputSchema);
    } catch (err) {
      return bad(`input_schema_json is not a valid JSON Schema: ${(err as Error).message}`);
    }
    const name = d.name;
    return {
      name,
      tier,
      // Reached only from kernel cells, so it exists where the run's cells do.
      resource: "kernel",
      description: d.description,
      parallelSafe: tier === "read",
      inputSchema,
      validate,
      invoke: async (args: unknown, ctx: ToolContext): Promise<ToolOutput> => {
        try {
          return outputOf(name, await this.call(name, args, ctx.kernelId ?? "", ctx.signal));
        } catch (err) {
          if (err instanceof EnclaveError) return failure(err);
          throw err;
        }
      },
    };
  }

  /** Runs one of the harness's tools; its answer, or an EnclaveError (timeout, cancelled, harness_lost). */
  private call(tool: string, args: unknown, kernelId: string, signal: AbortSignal): Promise<HarnessToolResult> {
    const callId = this.nextId();
    const answer = this.wait<HarnessToolResult>("call", callId, tool, LIMITS.toolHostCallTimeoutMs, signal);
    this.send({ command: { $case: "call", value: { callId, tool, argumentsJson: JSON.stringify(args), runId: this.runId, kernelId } } });
    return answer;
  }

  /**
   * Offers a bridge call to one of Enclave's tools to the harness. Fails closed: a harness that does
   * not decide in time, or goes away, refuses the call.
   */
  async offer(tool: Tool, args: unknown, kernelId: string, signal: AbortSignal): Promise<InterceptVerdict> {
    const callId = this.nextId();
    const answer = this.wait<InterceptDecision>("offer", callId, tool.name, LIMITS.toolHostInterceptTimeoutMs, signal);
    this.send({
      command: { $case: "offer", value: { callId, tool: tool.name, tier: tool.tier, argumentsJson: JSON.stringify(args), runId: this.runId, kernelId } },
    });
    const d = await answer;
    if (d.verdict === "allow") return { verdict: "allow" };
    if (d.verdict === "deny") return { verdict: "deny", reason: d.reason.trim() };
    if (d.verdict === "answer") {
      if (!d.answer) throw new EnclaveError("failed", `the harness answered the intercepted \`${tool.name}\` call with verdict "answer" but no answer`);
      return { verdict: "answer", output: outputOf(tool.name, d.answer) };
    }
    // An unknown verdict must not let the call through: interception fails closed.
    throw new EnclaveError(
      "harness_denied",
      `the harness gave the intercepted \`${tool.name}\` call the verdict \`${d.verdict.slice(0, 40)}\`, which is not allow, deny or answer; the call was not run`,
    );
  }

  /** The harness answered a call (result) or an offer (decision); an answer nobody waits for is dropped. */
  answer(kind: "call" | "offer", answer: HarnessToolResult | InterceptDecision): void {
    const w = this.waiting.get(answer.callId);
    if (!w || w.kind !== kind) return;
    w.settle(answer);
  }

  /** The stream is gone: every call and offer still waiting fails with harness_lost. */
  disconnected(why: string): void {
    this.gone = true;
    const err = new EnclaveError("harness_lost", `the harness's tool host disconnected (${why}) before answering; the call's outcome is unknown`);
    for (const w of [...this.waiting.values()]) w.settle(err);
  }

  get pending(): number {
    return this.waiting.size;
  }

  private nextId(): string {
    this.seq += 1;
    return `${this.prefix}-${this.seq}`;
  }

  private wait<T extends HarnessToolResult | InterceptDecision>(
    kind: Waiter["kind"],
    callId: string,
    tool: string,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<T> {
    if (this.gone) return Promise.reject(new EnclaveError("harness_lost", "the harness's tool host has disconnected; the call was not sent"));
    if (signal.aborted) return Promise.reject(new EnclaveError("cancelled", `the \`${tool}\` call was cancelled before it was sent to the harness`));
    return new Promise<T>((resolve, reject) => {
      const finish = (): void => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.waiting.delete(callId);
      };
      const cancel = (reason: string): void => {
        if (!this.gone) this.send({ command: { $case: "cancel", value: { callId, reason } } });
      };
      const timer = setTimeout(() => {
        finish();
        cancel("timed out");
        const what =
          kind === "call"
            ? `the harness did not answer the \`${tool}\` call`
            : `the harness did not decide on the intercepted \`${tool}\` call, so it was not run`;
        reject(new EnclaveError("timeout", `${what} within ${plural(Math.round(timeoutMs / 1000), "second")}`));
      }, timeoutMs);
      const onAbort = (): void => {
        finish();
        cancel("the cell was interrupted");
        reject(new EnclaveError("cancelled", `the \`${tool}\` call was cancelled (the cell was interrupted or ended); the harness was told to cancel it`));
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(callId, {
        kind,
        settle: (a) => {
          finish();
          if (a instanceof EnclaveError) reject(a);
          else resolve(a as T);
        },
      });
    });
  }
}
