// The agent's Debug service as promises, on the same channel as the rest of the AgentClient and with
// its error translation. A file of its own so agent-client.ts keeps only the connection and the
// services every placement call uses.
import { type ClientUnaryCall, credentials, Metadata, type ServiceError, status } from "@grpc/grpc-js";
import {
  type DebugAdaptersResponse,
  type DebugAttachRequest,
  type DebugBreakpointsRequest,
  type DebugBreakpointsResponse,
  DebugClient,
  type DebugEvaluateRequest,
  type DebugLaunchRequest,
  type DebugOutputResponse,
  type DebugResumeRequest,
  type DebugStatus,
  type DebugScopesResponse,
  type DebugStackRequest,
  type DebugStackResponse,
  type DebugThreadRequest,
  type DebugThreadsResponse,
  type DebugValue,
  type DebugVariablesResponse,
} from "@enclave/proto/gen/enclave/agent/v1/debug.js";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";
import type { AgentClient } from "./agent-client.js";

type Callback<Res> = (err: ServiceError | null, res?: Res) => void;

/** A resume's deadline: its wait for the next stop plus an ordinary call's time, never below launch's. */
export function resumeDeadlineMs(waitMs: number): number {
  return Math.max(LIMITS.debugLaunchCallTimeoutMs, waitMs + LIMITS.debugCallTimeoutMs);
}

export class DebugServiceClient {
  private readonly client: DebugClient;

  constructor(
    private readonly agent: AgentClient,
    client?: DebugClient,
    private readonly signal?: AbortSignal,
  ) {
    this.client =
      client ??
      new DebugClient(`unix://${agent.socketPath}`, credentials.createInsecure(), {
        channelOverride: agent.info.getChannel(),
      } as Record<string, unknown>);
  }

  /** The same service, with calls cancelled when the tool call is (a long `continue` wait). */
  forCall(signal: AbortSignal): DebugServiceClient {
    return new DebugServiceClient(this.agent, this.client, signal);
  }

  private call<Res>(timeoutMs: number, start: (md: Metadata, opts: { deadline: number }, cb: Callback<Res>) => ClientUnaryCall): Promise<Res> {
    return new Promise((resolve, reject) => {
      if (this.signal?.aborted) {
        reject(new EnclaveError("cancelled", "the debug call was cancelled before it started"));
        return;
      }
      const onAbort = (): void => call.cancel();
      const call = start(new Metadata(), { deadline: Date.now() + timeoutMs }, (err, res) => {
        this.signal?.removeEventListener("abort", onAbort);
        if (err)
          reject(
            err.code === status.CANCELLED && this.signal?.aborted ? new EnclaveError("cancelled", "the debug call was cancelled") : this.agent.translate(err),
          );
        else resolve(res as Res);
      });
      this.signal?.addEventListener("abort", onAbort);
    });
  }

  adapters(): Promise<DebugAdaptersResponse> {
    return this.call(LIMITS.debugCallTimeoutMs, (md, o, cb) => this.client.adapters({}, md, o, cb));
  }
  status(sessionKey: string): Promise<DebugStatus> {
    return this.call(LIMITS.debugCallTimeoutMs, (md, o, cb) => this.client.status({ sessionKey }, md, o, cb));
  }
  setBreakpoints(req: DebugBreakpointsRequest): Promise<DebugBreakpointsResponse> {
    return this.call(LIMITS.debugCallTimeoutMs, (md, o, cb) => this.client.setBreakpoints(req, md, o, cb));
  }
  launch(req: DebugLaunchRequest): Promise<DebugStatus> {
    return this.call(LIMITS.debugLaunchCallTimeoutMs, (md, o, cb) => this.client.launch(req, md, o, cb));
  }
  attach(req: DebugAttachRequest): Promise<DebugStatus> {
    return this.call(LIMITS.debugLaunchCallTimeoutMs, (md, o, cb) => this.client.attach(req, md, o, cb));
  }
  resume(req: DebugResumeRequest): Promise<DebugStatus> {
    return this.call(resumeDeadlineMs(req.waitMs), (md, o, cb) => this.client.resume(req, md, o, cb));
  }
  pause(req: DebugThreadRequest): Promise<DebugStatus> {
    return this.call(resumeDeadlineMs(req.waitMs), (md, o, cb) => this.client.pause(req, md, o, cb));
  }
  threads(sessionKey: string): Promise<DebugThreadsResponse> {
    return this.call(LIMITS.debugCallTimeoutMs, (md, o, cb) => this.client.threads({ sessionKey }, md, o, cb));
  }
  stack(req: DebugStackRequest): Promise<DebugStackResponse> {
    return this.call(LIMITS.debugCallTimeoutMs, (md, o, cb) => this.client.stack(req, md, o, cb));
  }
  scopes(sessionKey: string, frameId: number): Promise<DebugScopesResponse> {
    return this.call(LIMITS.debugCallTimeoutMs, (md, o, cb) => this.client.scopes({ sessionKey, frameId }, md, o, cb));
  }
  variables(sessionKey: string, reference: number): Promise<DebugVariablesResponse> {
    return this.call(LIMITS.debugCallTimeoutMs, (md, o, cb) => this.client.variables({ sessionKey, reference }, md, o, cb));
  }
  evaluate(req: DebugEvaluateRequest): Promise<DebugValue> {
    return this.call(LIMITS.debugCallTimeoutMs, (md, o, cb) => this.client.evaluate(req, md, o, cb));
  }
  output(sessionKey: string): Promise<DebugOutputResponse> {
    return this.call(LIMITS.debugCallTimeoutMs, (md, o, cb) => this.client.output({ sessionKey }, md, o, cb));
  }
  terminate(sessionKey: string): Promise<DebugStatus> {
    return this.call(LIMITS.debugCallTimeoutMs, (md, o, cb) => this.client.terminate({ sessionKey }, md, o, cb));
  }
}

const byAgent = new WeakMap<AgentClient, DebugServiceClient>();

/** The Debug service of an agent, one per AgentClient (a restarted agent gets a new client). */
export function debugServiceClient(agent: AgentClient): DebugServiceClient {
  let d = byAgent.get(agent);
  if (!d) {
    d = new DebugServiceClient(agent);
    byAgent.set(agent, d);
  }
  return d;
}
