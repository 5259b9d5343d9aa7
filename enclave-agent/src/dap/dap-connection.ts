// One DAP conversation with an adapter over any byte stream pair (a child's stdio, or a loopback TCP
// socket): requests with their responses matched by seq and each bounded by a timeout, events to
// listeners, and reverse requests (runInTerminal, startDebugging) answered by registered handlers.
// Transport stays out of here; protocol logic stays out of the transport.
import type { Readable, Writable } from "node:stream";
import type { DebugProtocol } from "@vscode/debugprotocol";
import { encodeMessage, MessageReader } from "./dap-framing.js";

export class DapRequestError extends Error {
  constructor(
    readonly command: string,
    message: string,
    readonly body?: unknown,
  ) {
    super(message);
    this.name = "DapRequestError";
  }
}

export class DapTimeoutError extends Error {
  constructor(
    readonly command: string,
    readonly timeoutMs: number,
  ) {
    super(`the adapter did not answer \`${command}\` within ${timeoutMs} ms`);
    this.name = "DapTimeoutError";
  }
}

export class DapClosedError extends Error {
  constructor(
    readonly command: string,
    why: string,
  ) {
    super(`the adapter connection closed before it answered \`${command}\` (${why})`);
    this.name = "DapClosedError";
  }
}

type ReverseHandler = (args: unknown) => Promise<unknown>;
type EventListener = (event: DebugProtocol.Event) => void;

interface Pending {
  command: string;
  resolve: (r: DebugProtocol.Response) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

export class DapConnection {
  private seq = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Set<EventListener>();
  private readonly reverse = new Map<string, ReverseHandler>();
  private closedWhy: string | undefined;
  private readonly closeWaiters: Array<(why: string) => void> = [];

  constructor(
    input: Readable,
    private readonly output: Writable,
    maxMessageBytes: number,
    private readonly trace?: (direction: "in" | "out", message: DebugProtocol.ProtocolMessage) => void,
  ) {
    const reader = new MessageReader(maxMessageBytes);
    input.on("data", (chunk: Buffer) => {
      let messages: DebugProtocol.ProtocolMessage[];
      try {
        messages = reader.push(chunk);
      } catch (err) {
        this.close(`the adapter sent a broken message: ${(err as Error).message}`);
        return;
      }
      for (const m of messages) this.dispatch(m);
    });
    input.on("close", () => this.close("the adapter closed its end"));
    input.on("error", (err) => this.close(`read failed: ${err.message}`));
    output.on("error", (err) => this.close(`write failed: ${err.message}`));
  }

  get closed(): boolean {
    return this.closedWhy !== undefined;
  }

  /** Resolves with the reason once the connection is closed. */
  whenClosed(): Promise<string> {
    if (this.closedWhy !== undefined) return Promise.resolve(this.closedWhy);
    return new Promise((resolve) => this.closeWaiters.push(resolve));
  }

  onEvent(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Answers a reverse request; a thrown error is sent back as a failed response with its message. */
  handleReverse(command: string, handler: ReverseHandler): void {
    this.reverse.set(command, handler);
  }

  /** Sends a request; resolves with the successful response, rejects with DapRequestError on failure. */
  request<R extends DebugProtocol.Response>(command: string, args: unknown, timeoutMs: number): Promise<R> {
    if (this.closedWhy !== undefined) return Promise.reject(new DapClosedError(command, this.closedWhy));
    const seq = this.seq++;
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(seq);
        reject(new DapTimeoutError(command, timeoutMs));
      }, timeoutMs);
      this.pending.set(seq, { command, resolve: resolve as (r: DebugProtocol.Response) => void, reject, timer });
      const message: DebugProtocol.Request = { seq, type: "request", command, ...(args === undefined ? {} : { arguments: args }) };
      this.write(message);
    });
  }

  /** Waits for the first event satisfying the predicate, bounded; undefined on timeout or close. */
  waitForEvent<E extends DebugProtocol.Event>(predicate: (e: DebugProtocol.Event) => boolean, timeoutMs: number): Promise<E | undefined> {
    return new Promise((resolve) => {
      let done = false;
      const finish = (e: E | undefined): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        off();
        resolve(e);
      };
      const off = this.onEvent((e) => {
        if (predicate(e)) finish(e as E);
      });
      const timer = setTimeout(() => finish(undefined), timeoutMs);
      void this.whenClosed().then(() => finish(undefined));
    });
  }

  close(why: string): void {
    if (this.closedWhy !== undefined) return;
    this.closedWhy = why;
    for (const [seq, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new DapClosedError(p.command, why));
      this.pending.delete(seq);
    }
    for (const w of this.closeWaiters.splice(0)) w(why);
  }

  private write(message: DebugProtocol.ProtocolMessage): void {
    this.trace?.("out", message);
    if (this.closedWhy === undefined) this.output.write(encodeMessage(message));
  }

  private dispatch(message: DebugProtocol.ProtocolMessage): void {
    this.trace?.("in", message);
    if (message.type === "response") {
      const r = message as DebugProtocol.Response;
      const p = this.pending.get(r.request_seq);
      if (!p) return; // answered after we gave up on it
      this.pending.delete(r.request_seq);
      clearTimeout(p.timer);
      if (r.success) p.resolve(r);
      else {
        const detail = (r.body as DebugProtocol.ErrorResponse["body"] | undefined)?.error;
        const text = detail?.format ? formatErrorMessage(detail) : r.message || "failed";
        p.reject(new DapRequestError(p.command, text, r.body));
      }
    } else if (message.type === "event") {
      for (const l of [...this.listeners]) l(message as DebugProtocol.Event);
    } else if (message.type === "request") {
      void this.answerReverse(message as DebugProtocol.Request);
    }
  }

  private async answerReverse(req: DebugProtocol.Request): Promise<void> {
    const handler = this.reverse.get(req.command);
    const base = { seq: this.seq++, type: "response" as const, request_seq: req.seq, command: req.command };
    if (!handler) {
      this.write({ ...base, success: false, message: `the client does not support \`${req.command}\`` } as DebugProtocol.Response);
      return;
    }
    try {
      const body = await handler(req.arguments);
      this.write({ ...base, success: true, body } as DebugProtocol.Response);
    } catch (err) {
      this.write({ ...base, success: false, message: (err as Error).message } as DebugProtocol.Response);
    }
  }
}

/** Fills `{name}` placeholders of a DAP error message from its variables. */
export function formatErrorMessage(m: DebugProtocol.Message): string {
  return m.format.replace(/\{([^}]+)\}/g, (whole, name: string) => m.variables?.[name] ?? whole);
}
