// The harness side of ConnectToolHost, for harnesses in Node: declare tools the run's kernel cells
// may call with tool(name, args), answer those calls, and (with intercept) rule on every cell's call
// to Enclave's tools. Answers take the custom tools' AgentToolResult form (or a plain string).
import type { ClientDuplexStream, ServiceError } from "@grpc/grpc-js";
import { status } from "@grpc/grpc-js";
import type { ContentPart, HarnessToolResult, ToolHostCommand, ToolHostMessage } from "@enclave/proto/gen/enclave/control/v1/control.js";

export interface HarnessToolSpec {
  /** Lower-case letters, digits and _, starting with a letter; not an Enclave tool's name. */
  name: string;
  /** Default "exec", the most cautious. */
  tier?: "read" | "write" | "exec";
  description: string;
  /** JSON Schema of the arguments (type "object"); Enclave validates a cell's arguments against it. */
  parameters: Record<string, unknown>;
}

/** Text and image (base64 data) parts, as a custom tool's execute() returns them; or just text. */
export type HarnessAnswer = string | { content: Array<{ type: "text"; text: string } | { type: "image"; data: string; mimeType: string }> };

export interface HarnessCallInfo {
  callId: string;
  runId: string;
  kernelId: string;
  /** Aborted when Enclave cancels the call (the cell was interrupted, the call timed out). */
  signal: AbortSignal;
}

/** allow: Enclave runs the call; deny: the cell gets a ToolError (harness_denied) with the reason; answer: this is the result. */
export type HarnessVerdict = "allow" | { deny: string } | { answer: HarnessAnswer };

export interface ToolHostHandlers {
  /** A cell called one of the declared tools (arguments already validated). Throw to fail the call. */
  call(tool: string, args: unknown, info: HarnessCallInfo): Promise<HarnessAnswer> | HarnessAnswer;
  /** With intercept: a cell calls one of Enclave's tools. Throwing denies it with the error's message. */
  intercept?(tool: string, args: unknown, info: HarnessCallInfo & { tier: string }): Promise<HarnessVerdict> | HarnessVerdict;
}

export interface ToolHostConnection {
  /** The tools registered, once the control plane has accepted the hello (rejects if it refused it). */
  ready: Promise<string[]>;
  /** Settles when the stream ends (rejects with the control plane's reason when it ended it). */
  done: Promise<void>;
  close(): void;
}

function parts(answer: HarnessAnswer): ContentPart[] {
  if (typeof answer === "string") return [{ part: { $case: "text", value: answer }, repeatsStreamed: false }];
  return answer.content.map((p) => ({
    part: p.type === "text" ? { $case: "text", value: p.text } : { $case: "image", value: { mimeType: p.mimeType, data: Buffer.from(p.data, "base64") } },
    repeatsStreamed: false,
  }));
}

function failed(callId: string, err: unknown): HarnessToolResult {
  return { callId, parts: [], isError: true, errorMessage: err instanceof Error ? err.message : String(err) };
}

export function runToolHost(
  stream: ClientDuplexStream<ToolHostMessage, ToolHostCommand>,
  runId: string,
  tools: HarnessToolSpec[],
  handlers: ToolHostHandlers,
  intercept: boolean,
  streamError: (err: ServiceError) => Error,
): ToolHostConnection {
  const inFlight = new Map<string, AbortController>();
  const send = (m: ToolHostMessage): void => {
    if (!stream.writableEnded && !stream.destroyed) stream.write(m);
  };
  let markReady: (names: string[]) => void = () => undefined;
  const ready = new Promise<string[]>((resolve) => (markReady = resolve));
  const done = new Promise<void>((resolve, reject) => {
    stream.on("end", () => resolve());
    stream.on("error", (err: ServiceError) => (err.code === status.CANCELLED ? resolve() : reject(streamError(err))));
  });
  done
    .finally(() => {
      for (const c of inFlight.values()) c.abort();
    })
    .catch(() => undefined);

  const start = (callId: string): HarnessCallInfo => {
    const controller = new AbortController();
    inFlight.set(callId, controller);
    return { callId, runId, kernelId: "", signal: controller.signal };
  };
  stream.on("data", (c: ToolHostCommand) => {
    const cmd = c.command;
    if (!cmd) return;
    if (cmd.$case === "ready") markReady(cmd.value.tools);
    else if (cmd.$case === "cancel") inFlight.get(cmd.value.callId)?.abort();
    else if (cmd.$case === "call") {
      const { callId, tool, argumentsJson, kernelId } = cmd.value;
      const info = { ...start(callId), kernelId };
      void (async () => handlers.call(tool, JSON.parse(argumentsJson) as unknown, info))()
        .then(
          (answer) => ({ callId, parts: parts(answer), isError: false, errorMessage: "" }),
          (err: unknown) => failed(callId, err),
        )
        .then((result) => {
          inFlight.delete(callId);
          if (!info.signal.aborted) send({ message: { $case: "result", value: result } });
        });
    } else if (cmd.$case === "offer") {
      const { callId, tool, argumentsJson, kernelId, tier } = cmd.value;
      const info = { ...start(callId), kernelId, tier };
      const rule = handlers.intercept ?? (() => "allow" as const);
      void (async () => rule(tool, JSON.parse(argumentsJson) as unknown, info))()
        .then(
          (v) =>
            v === "allow"
              ? { callId, verdict: "allow", reason: "" }
              : "deny" in v
                ? { callId, verdict: "deny", reason: v.deny }
                : { callId, verdict: "answer", reason: "", answer: { callId, parts: parts(v.answer), isError: false, errorMessage: "" } },
          (err: unknown) => ({ callId, verdict: "deny", reason: err instanceof Error ? err.message : String(err) }),
        )
        .then((decision) => {
          inFlight.delete(callId);
          if (!info.signal.aborted) send({ message: { $case: "decision", value: decision } });
        });
    }
  });
  send({
    message: {
      $case: "hello",
      value: {
        runId,
        intercept,
        tools: tools.map((t) => ({ name: t.name, tier: t.tier ?? "", description: t.description, inputSchemaJson: JSON.stringify(t.parameters) })),
      },
    },
  });
  const readyOrFail = Promise.race([ready, done.then(() => Promise.reject(new Error("the tool host stream ended before it was registered")))]);
  readyOrFail.catch(() => undefined);
  return { ready: readyOrFail, done, close: () => stream.cancel() };
}
