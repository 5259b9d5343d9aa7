// One path for every tool call, whoever makes it (the harness for its model, or a kernel cell over
// the bridge): look the tool up on the run's surface, parse and validate its arguments, pass the
// approval gate, run it against the placement resolved now, and record the outcome in the audit log.
import type { ApprovalGate } from "../approval/approval-gate.js";
import { argumentsDigest, type AuditLog } from "../audit/audit-log.js";
import { asEnclaveError, EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import type { AgentEndpoint, AgentPrepare } from "../placement/agent-endpoint.js";
import type { Run, Surface } from "../model/run.js";
import type { PendingActionStore } from "../pending/pending-action-store.js";
import { type PendingState, pendingStateOf } from "../pending/pending-state.js";
import type { ToolHosts } from "../toolhost/tool-hosts.js";
import type { CallOrigin, ContentPart, Tool, ToolOutput, ToolStreamEvent } from "./tool.js";
import type { ToolRegistry } from "./tool-registry.js";
import type { CallFeed, CallStarted } from "./call-feed.js";
import type { CallsInFlight, CancelledBy } from "./calls-in-flight.js";
import { checkJsonShape } from "./argument-shape.js";

export interface PlacementPort {
  endpoint(conversationId: string, prepare?: AgentPrepare): Promise<AgentEndpoint>;
  /** A clearer error for a failure that may mean the placement died (an enclosure gone). */
  explain(conversationId: string, err: EnclaveError): Promise<EnclaveError>;
}

export interface CallRequest {
  run: Run;
  tool: string;
  argumentsJson: string;
  origin: CallOrigin;
  emit?: (event: ToolStreamEvent) => void;
  signal?: AbortSignal;
  /** The transport saw bytes that are not UTF-8 in the call's strings. */
  notUtf8?: boolean;
  /** The kernel a bridge call came from. */
  kernelId?: string;
}

export interface CallResult {
  isError: boolean;
  parts: ContentPart[];
  errorCode: string;
  durationMs: number;
  /** The tool's result as data (its details schema); absent for refusals and tools without one. */
  details?: unknown;
  /** The run's staged changes once the call ended, whatever its outcome. */
  pending?: PendingState;
}

function parseArguments(tool: Tool, json: string, notUtf8: boolean): unknown {
  if (notUtf8) {
    throw new EnclaveError("invalid_arguments", `arguments for \`${tool.name}\` are not valid UTF-8: send the JSON as UTF-8 text`);
  }
  if (Buffer.byteLength(json) > LIMITS.argumentsMaxBytes) {
    throw new EnclaveError("invalid_arguments", `arguments for \`${tool.name}\` are over ${LIMITS.argumentsMaxBytes} bytes`);
  }
  checkJsonShape(`arguments for \`${tool.name}\``, json);
  let value: unknown;
  try {
    value = json.trim() === "" ? {} : JSON.parse(json);
  } catch (err) {
    throw new EnclaveError("invalid_arguments", `arguments for \`${tool.name}\` are not valid JSON: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new EnclaveError("invalid_arguments", `arguments for \`${tool.name}\` must be a JSON object`);
  }
  return value;
}

function detailsOf(output: ToolOutput): { details?: unknown } {
  return output.details === undefined ? {} : { details: output.details };
}

/**
 * While a change is staged, only read tools, staging tools and resolve run: resolve comes first. A
 * run opened with strict_resolve runs resolve alone, for a harness that cannot steer its model's
 * next call and would otherwise see it read on past the staged change.
 */
function refuseWhilePending(tool: Tool, pending: PendingActionStore | undefined, strict: boolean): void {
  const top = pending?.peek();
  if (!top || tool.name === "resolve" || (!strict && (tool.tier === "read" || tool.stagesOnly))) return;
  throw new EnclaveError(
    "failed_precondition",
    `\`${tool.name}\` is refused while a staged change is pending (${top.id}: ${top.label}). ` +
      `Call \`resolve\` first (action "apply" or "discard"), then call \`${tool.name}\` again.`,
  );
}

export interface ToolDispatcherOptions {
  registry: ToolRegistry;
  gate: ApprovalGate;
  audit: AuditLog;
  placements: PlacementPort;
  pendingFor?: (run: Run) => PendingActionStore | undefined;
  toolHosts?: ToolHosts;
  /** Calls as they start and finish, for live watchers. */
  feed?: CallFeed;
  /** The calls running now, which an operator may cancel (needs `feed`: its ids are the feed's). */
  inFlight?: CallsInFlight;
}

/** How long a call an operator cancelled may take to stop before its caller is answered anyway. */
const OPERATOR_CANCEL_GRACE_MS = 5_000;

/** A call's ending as the caller sees it once an operator cancelled it: `cancelled`, saying who. */
function cancelledByOperator(by: CancelledBy, tool: string, parts: ContentPart[], durationMs: number, stopped = true): CallResult {
  const after = stopped ? "what it started was stopped" : `it did not stop within ${OPERATOR_CANCEL_GRACE_MS / 1000} s and is answered now`;
  const said = { type: "text" as const, text: `[the \`${tool}\` call was cancelled by ${by.who}; ${after}]\n` };
  return { isError: true, parts: [said, ...parts], errorCode: "cancelled", durationMs };
}

export class ToolDispatcher {
  private readonly registry: ToolRegistry;
  private readonly gate: ApprovalGate;
  private readonly audit: AuditLog;
  private readonly placements: PlacementPort;
  private readonly pendingFor: (run: Run) => PendingActionStore | undefined;
  private readonly toolHosts: ToolHosts | undefined;
  /** Calls as they start and finish, for live watchers. */
  private readonly feed: CallFeed | undefined;
  private readonly inFlight: CallsInFlight | undefined;

  constructor(opts: ToolDispatcherOptions) {
    this.registry = opts.registry;
    this.gate = opts.gate;
    this.audit = opts.audit;
    this.placements = opts.placements;
    this.pendingFor = opts.pendingFor ?? (() => undefined);
    this.toolHosts = opts.toolHosts;
    this.feed = opts.feed;
    this.inFlight = opts.inFlight;
  }

  /** The harness tools a call may name: a cell's calls only, never the harness's own or its model's. */
  private harnessTools(req: CallRequest): Tool[] {
    return req.origin === "bridge" ? (this.toolHosts?.toolsFor(req.run.id) ?? []) : [];
  }

  /** What a cell under this surface may call: what the dispatcher would look up, less eval (refused from a cell) and a hidden resolve. */
  private callable(req: CallRequest, surface: Surface): Tool[] {
    const run = { ...req.run, surface };
    const pending = this.pendingFor(req.run)?.hasPending ?? false;
    return this.registry.visible(run, this.harnessTools({ ...req, origin: "bridge" })).filter((t) => t.name !== "eval" && (t.name !== "resolve" || pending));
  }

  /** Runs the call; its result carries the run's pending state as it is once the call ended. */
  async call(req: CallRequest): Promise<CallResult> {
    const result = await this.dispatch(req);
    return { ...result, pending: pendingStateOf(this.pendingFor(req.run)) };
  }

  /**
   * The call, cancellable by an operator while it runs: a tool that does not stop within the grace
   * is answered `cancelled` anyway (what it does after is not recorded again).
   */
  private async dispatch(req: CallRequest): Promise<CallResult> {
    const callerSignal = req.signal ?? new AbortController().signal;
    const live = this.feed?.started({ conversationId: req.run.conversationId, runId: req.run.id, tool: req.tool.slice(0, 200), origin: req.origin });
    const tracked = live && this.inFlight ? this.inFlight.track(live, callerSignal) : undefined;
    if (!tracked) return this.dispatchTracked(req, live, callerSignal, () => undefined, { answered: false });
    const answer = { answered: false };
    let timer: NodeJS.Timeout | undefined;
    const overdue = new Promise<CallResult>((resolve) => {
      tracked.whenCancelled(() => {
        const by = tracked.cancelledBy();
        if (!by) return;
        timer = setTimeout(() => {
          const started = live?.startedAtMs ?? Date.now();
          const result = cancelledByOperator(by, req.tool.slice(0, 200), [], Date.now() - started, false);
          answer.answered = true;
          void this.record(
            live,
            req,
            undefined,
            undefined,
            "error:cancelled",
            result.durationMs,
            "",
            `cancelled by ${by.who}; it did not stop within ${OPERATOR_CANCEL_GRACE_MS} ms`,
          ).then(
            () => resolve(result),
            () => resolve(result),
          );
        }, OPERATOR_CANCEL_GRACE_MS);
      });
    });
    try {
      return await Promise.race([this.dispatchTracked(req, live, tracked.signal, tracked.cancelledBy, answer), overdue]);
    } finally {
      clearTimeout(timer);
      // The callback (and the call it holds) goes with the call: nothing of it stays once answered.
      tracked.done();
    }
  }

  private async dispatchTracked(
    req: CallRequest,
    live: CallStarted | undefined,
    signal: AbortSignal,
    cancelledBy: () => CancelledBy | undefined,
    answer: { answered: boolean },
  ): Promise<CallResult> {
    const started = Date.now();
    let tool: Tool | undefined;
    let args: unknown;
    let placement = "";
    const record: typeof this.record = (...a) => (answer.answered ? Promise.resolve() : this.record(...a));
    try {
      const harnessTools = this.harnessTools(req);
      tool = this.registry.lookup(req.run, req.tool, harnessTools);
      args = parseArguments(tool, req.argumentsJson, req.notUtf8 ?? false);
      const checked = tool.validate(args);
      if (!checked.ok) throw new EnclaveError("invalid_arguments", checked.error);
      const pending = this.pendingFor(req.run);
      refuseWhilePending(tool, pending, req.run.strictResolve ?? false);
      // The harness's guardrails see a cell's call to Enclave's tools before the human does.
      if (req.origin === "bridge" && this.toolHosts && !harnessTools.includes(tool)) {
        const verdict = await this.toolHosts.offer(req.run.id, tool, checked.args, req.kernelId ?? "", signal);
        if (verdict.verdict === "deny") {
          throw new EnclaveError("harness_denied", `the harness denied \`${tool.name}\`: ${verdict.reason || "it gave no reason"}`);
        }
        if (verdict.verdict === "answer") {
          const out = verdict.output;
          const durationMs = Date.now() - started;
          const code = out.error?.code ?? "";
          await record(live, req, tool, args, code ? `error:${code}` : "ok", durationMs, placement, "answered by the harness (intercepted)");
          return { isError: code !== "", parts: out.parts, errorCode: code, durationMs };
        }
      }
      await this.gate.check({ run: req.run, tool, args: checked.args }, signal);
      const output = await tool.invoke(checked.args, {
        run: req.run,
        origin: req.origin,
        signal,
        dispatch: (nested) =>
          this.call({
            run: nested.surface ? { ...req.run, surface: nested.surface } : req.run,
            tool: nested.tool,
            argumentsJson: nested.argumentsJson,
            origin: nested.origin,
            kernelId: nested.kernelId,
            signal: nested.signal,
          }),
        emit: req.emit ?? (() => undefined),
        ...(pending ? { pending } : {}),
        ...(req.kernelId !== undefined ? { kernelId: req.kernelId } : {}),
        callable: (surface) => this.callable(req, surface),
        agent: async (prepare) => {
          const ep = await this.placements.endpoint(req.run.conversationId, prepare);
          placement = ep.where;
          return ep;
        },
      });
      const durationMs = Date.now() - started;
      const audited = { ...req, kernelId: output.audit?.kernelId ?? req.kernelId };
      const by = cancelledBy();
      if (output.error && by) {
        await record(live, audited, tool, args, "error:cancelled", durationMs, placement, `cancelled by ${by.who}; ${output.audit?.detail ?? ""}`);
        return { ...cancelledByOperator(by, tool.name, output.parts, durationMs), ...detailsOf(output) };
      }
      if (output.error) {
        await record(live, audited, tool, args, `error:${output.error.code}`, durationMs, placement, output.audit?.detail);
        return { isError: true, parts: output.parts, errorCode: output.error.code, durationMs, ...detailsOf(output) };
      }
      const result: CallResult = { isError: false, parts: output.parts, errorCode: "", durationMs, ...detailsOf(output) };
      await record(live, audited, tool, args, "ok", result.durationMs, placement, output.audit?.detail);
      return result;
    } catch (thrown) {
      let err = asEnclaveError(thrown);
      if (err.code === "agent_lost" || err.code === "placement_unavailable" || err.code === "timeout") {
        err = await this.placements.explain(req.run.conversationId, err);
      }
      const durationMs = Date.now() - started;
      const by = cancelledBy();
      if (by) {
        await record(live, req, tool, args, "error:cancelled", durationMs, placement, `cancelled by ${by.who}; ${err.message}`);
        return cancelledByOperator(by, tool?.name ?? req.tool.slice(0, 200), [{ type: "text", text: err.message }], durationMs);
      }
      const refused = err.code === "unknown_tool" || err.code === "invalid_arguments" || err.code === "approval_refused" || err.code === "harness_denied";
      await record(live, req, tool, args, `${refused ? "refused" : "error"}:${err.code}`, durationMs, placement, err.message);
      return { isError: true, parts: [{ type: "text", text: err.message }], errorCode: err.code, durationMs };
    }
  }

  private record(
    live: CallStarted | undefined,
    req: CallRequest,
    tool: Tool | undefined,
    args: unknown,
    outcome: string,
    durationMs: number,
    placement: string,
    detail = "",
  ): Promise<void> {
    // Committed with the other calls that finish in this turn of the event loop; the call's result
    // is returned only once its record is in the log.
    const { event, committed } = this.audit.recordCommitted({
      kind: "tool_call",
      conversationId: req.run.conversationId,
      runId: req.run.id,
      tool: tool?.name ?? req.tool.slice(0, 200),
      // A call refused for not being on the surface still records the tier of what it asked for.
      tier: tool?.tier ?? this.registry.all().find((t) => t.name === req.tool)?.tier ?? "",
      argumentsDigest: args === undefined ? "" : argumentsDigest(args),
      outcome,
      durationMs,
      origin: req.origin,
      detail: detail.slice(0, 500),
      placement,
      kernelId: req.kernelId ?? "",
    });
    // Watchers see the call finish with what the log keeps: a record that failed to commit is not
    // shown (the call's error, recorded next, is).
    return committed.then(() => {
      if (live) this.feed?.finished(live, event);
    });
  }
}
