// The console's extension point for live resources: each capability that runs something per
// conversation (language servers, a debug session, kernels, vibe workers) registers a source, and
// the conversation page shows one section per source. ControlPlane.liveStatus holds the registry;
// wire a new capability with `this.liveStatus.register({...})` in its constructor.
import { elapsedMs, formatDuration } from "../vibe/worker.js";
import type { VibeRoster } from "../vibe/vibe-roster.js";
import { clipLine } from "../text/wording.js";

export interface LiveStatusItem {
  /** What it is: "pylsp for /workspace", "w3 \"tests\"". */
  name: string;
  /** A short state word: running, stopped, done, failed… */
  state: string;
  /** One line more: where, how long, last result. */
  detail?: string;
  /** Since when it is in this state (epoch ms): the page shows a live duration. */
  sinceMs?: number;
}

export interface LiveStatusSource {
  /** Stable id, also the section's anchor: "lsp", "debug", "kernels", "vibe". */
  readonly id: string;
  readonly title: string;
  /** What the section says when list() is empty. */
  readonly empty: string;
  list(conversationId: string): LiveStatusItem[] | Promise<LiveStatusItem[]>;
}

export class LiveStatusRegistry {
  private readonly sources = new Map<string, LiveStatusSource>();

  register(source: LiveStatusSource): void {
    this.sources.set(source.id, source);
  }

  all(): LiveStatusSource[] {
    return [...this.sources.values()];
  }
}

/** Vibe workers of the conversation, from the roster. */
export function vibeWorkerStatus(roster: VibeRoster): LiveStatusSource {
  return {
    id: "vibe",
    title: "Vibe workers",
    empty: "no workers",
    list: (conversationId) =>
      roster.list(conversationId).map((w) => ({
        name: `${w.id} "${w.label}"`,
        state: w.state,
        detail: [
          `${w.tier}, attempt ${w.attempt}, host ${w.host.name}`,
          w.state === "running" ? "" : `ran ${formatDuration(elapsedMs(w))}`,
          w.state === "running" && w.outputTail ? `output: ${clipLine(w.outputTail.slice(-300), 160)}` : "",
          w.state !== "running" && (w.result || w.detail) ? `result: ${clipLine(w.result || w.detail, 160)}` : "",
        ]
          .filter(Boolean)
          .join(" · "),
        sinceMs: w.state === "running" ? w.startedAtMs : undefined,
      })),
  };
}
