// A vibe worker: a background agent run by a worker host for one conversation. Its brief grows with
// each vibe_send, and each re-run is a new attempt; reports from an older attempt are ignored.
import type { WorkerAssignment } from "@enclave/proto/gen/enclave/control/v1/control.js";

export const VIBE_TIERS = ["fast", "good"] as const;
export type VibeTier = (typeof VIBE_TIERS)[number];

export type WorkerState = "running" | "done" | "failed" | "killed";

/** What a host is asked to run: the API message itself, one shape for both kinds of host. */
export type Assignment = WorkerAssignment;

/** Where a host reports one attempt. */
export interface WorkerSink {
  /** Output as it comes (the built-in host streams the command's stdout and stderr). */
  progress(text: string): void;
  settle(state: "done" | "failed", result: string): void;
  /** Where the attempt runs, once known (the built-in host: "host placement, pid …" or "enclosure …"). */
  placed?(where: string): void;
}

/** Runs workers: a harness connected over gRPC, or the built-in command host. */
export interface WorkerHost {
  readonly name: string;
  serves(conversationId: string, tier: VibeTier): boolean;
  /** Whether the conversation may see this host at all (vibe_list names it); every one when absent. */
  admits?(conversationId: string): boolean;
  /** Attempts running now, to spread work across hosts. */
  load(): number;
  start(a: Assignment, sink: WorkerSink): void;
  /** Stops an attempt; resolves once it is gone (built-in) or the host has been told (remote). */
  kill(a: Assignment): Promise<void>;
}

export interface Worker {
  id: string;
  conversationId: string;
  label: string;
  tier: VibeTier;
  brief: string;
  messages: string[];
  workspacePath: string;
  state: WorkerState;
  attempt: number;
  host: WorkerHost;
  spawnedAtMs: number;
  /** Start of the current attempt, and when it settled (0 while running). */
  startedAtMs: number;
  settledAtMs: number;
  /** The last settled attempt's result (kept across re-runs until the next one settles). */
  result: string;
  /** Why it failed or was killed, in a few words. */
  detail: string;
  /** The current attempt's most recent output. */
  outputTail: string;
  /** Where the current attempt runs, when its host says (the built-in host does); "" otherwise. */
  placement: string;
}

export function assignmentOf(w: Worker): Assignment {
  return {
    conversationId: w.conversationId,
    workerId: w.id,
    attempt: w.attempt,
    label: w.label,
    tier: w.tier,
    brief: w.brief,
    messages: [...w.messages],
    workspacePath: w.workspacePath,
  };
}

/** The brief as one text, with every appended message after it (what the built-in host feeds to stdin). */
export function fullBrief(a: Pick<Assignment, "brief" | "messages">): string {
  return [a.brief, ...a.messages.map((m, i) => `--- follow-up ${i + 1} ---\n${m}`)].join("\n\n") + "\n";
}

export function elapsedMs(w: Worker, now = Date.now()): number {
  return (w.settledAtMs || now) - w.startedAtMs;
}

export function formatDuration(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${Math.round(s - m * 60)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}
