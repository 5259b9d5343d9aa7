// Which harness tool host serves each run. At most one per run. A run whose intercepting host went
// away stays guarded: its cells' calls to Enclave's tools are refused (harness_lost) until a host
// connects again or the run closes, so losing the harness never quietly switches its guardrails off.
import { EnclaveError } from "../errors.js";
import type { Tool } from "../tools/tool.js";
import type { InterceptVerdict, ToolHost } from "./tool-host.js";

export class ToolHosts {
  private readonly byRun = new Map<string, { host: ToolHost; end: (why: string) => void }>();
  private readonly guarded = new Set<string>();

  /** `end` closes the host's stream (the run closed). */
  connect(host: ToolHost, end: (why: string) => void): void {
    if (this.byRun.has(host.runId)) {
      throw new EnclaveError("already_exists", `run \`${host.runId}\` already has a tool host connected; close its stream before connecting another`);
    }
    this.byRun.set(host.runId, { host, end });
    this.guarded.delete(host.runId);
  }

  /** The host's stream ended. */
  disconnected(host: ToolHost, why: string): void {
    if (this.byRun.get(host.runId)?.host !== host) return;
    this.byRun.delete(host.runId);
    if (host.intercepts) this.guarded.add(host.runId);
    host.disconnected(why);
  }

  /** The run closed: its host's stream is ended and nothing is kept for it. */
  closeRun(runId: string): void {
    const entry = this.byRun.get(runId);
    this.byRun.delete(runId);
    this.guarded.delete(runId);
    if (!entry) return;
    entry.host.disconnected("the run was closed");
    entry.end(`run \`${runId}\` was closed`);
  }

  /** The harness tools a run's cells may name (before their surface is applied). */
  toolsFor(runId: string): Tool[] {
    return this.byRun.get(runId)?.host.tools ?? [];
  }

  isHarnessTool(runId: string, tool: Tool): boolean {
    return this.toolsFor(runId).includes(tool);
  }

  /** The harness's verdict on a cell's call to one of Enclave's tools; allow when nobody intercepts. */
  offer(runId: string, tool: Tool, args: unknown, kernelId: string, signal: AbortSignal): Promise<InterceptVerdict> {
    const entry = this.byRun.get(runId);
    if (entry?.host.intercepts) return entry.host.offer(tool, args, kernelId, signal);
    if (!entry && this.guarded.has(runId)) {
      return Promise.reject(
        new EnclaveError(
          "harness_lost",
          `the harness that intercepts this run's tool() calls has disconnected, so \`${tool.name}\` was not run; calls resume when it connects again`,
        ),
      );
    }
    return Promise.resolve({ verdict: "allow" });
  }
}
