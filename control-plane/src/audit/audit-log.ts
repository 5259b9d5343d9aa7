// The audit log: every tool call (model or bridge), enclosure start/stop/death and conversation
// change, appended to a JSON-lines file so it outlives the process, and pushed to subscribers.
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import type { AuditEvent } from "../../../proto/gen/enclave/control/v1/control.js";
import { LIMITS } from "../limits.js";

// The audit event is the API message itself: one shape from the log file to subscribers.
export type { AuditEvent };

export type AuditInput = Partial<Omit<AuditEvent, "seq" | "timeMs">> & Pick<AuditEvent, "kind">;

/** Canonical JSON (sorted keys), so equal arguments always digest alike. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function argumentsDigest(args: unknown): string {
  return `sha256:${createHash("sha256").update(canonical(args)).digest("hex")}`;
}

type Listener = (e: AuditEvent) => void;

export class AuditLog {
  private readonly recent: AuditEvent[] = [];
  private readonly listeners = new Set<Listener>();
  private seq = 0;

  constructor(private readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    if (existsSync(file)) {
      for (const line of readFileSync(file, "utf8").split("\n")) {
        if (!line) continue;
        try {
          this.remember(JSON.parse(line) as AuditEvent);
        } catch {
          // A line cut by a crash: skip it, keep the rest.
        }
      }
    }
  }

  private remember(e: AuditEvent): void {
    this.seq = Math.max(this.seq, e.seq);
    this.recent.push(e);
    if (this.recent.length > LIMITS.auditMemoryEvents) this.recent.shift();
  }

  record(input: AuditInput): AuditEvent {
    const event: AuditEvent = {
      seq: this.seq + 1,
      timeMs: Date.now(),
      conversationId: "",
      runId: "",
      tool: "",
      tier: "",
      argumentsDigest: "",
      outcome: "",
      durationMs: 0,
      origin: "",
      detail: "",
      placement: "",
      kernelId: "",
      ...input,
    };
    appendFileSync(this.file, `${JSON.stringify(event)}\n`);
    this.remember(event);
    for (const l of this.listeners) l(event);
    return event;
  }

  history(conversationId?: string): AuditEvent[] {
    return this.recent.filter((e) => !conversationId || e.conversationId === conversationId);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
