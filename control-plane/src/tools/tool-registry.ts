// The registry: every tool the control plane offers, and which of them a run sees. A run's list has
// only tools whose resource is wired for it and whose tier its surface allows.
import { EnclaveError } from "../errors.js";
import { resourceWired, type Run, SURFACE_TIERS } from "../model/run.js";
import type { Tool } from "./tool.js";

export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();

  register(tool: Tool): void {
    if (this.tools.has(tool.name)) throw new Error(`tool \`${tool.name}\` is registered twice`);
    this.tools.set(tool.name, tool);
  }

  all(): Tool[] {
    return [...this.tools.values()];
  }

  /** `extra`: tools from outside the registry the caller may also reach (a harness's, for a cell). */
  visible(run: Run, extra: readonly Tool[] = []): Tool[] {
    const tiers = SURFACE_TIERS[run.surface];
    return [...this.all(), ...extra].filter((t) => resourceWired(run, t.resource) && tiers.includes(t.tier));
  }

  /** The tool a run may call by this name; anything not on its surface is unknown to it. */
  lookup(run: Run, name: string, extra: readonly Tool[] = []): Tool {
    const tool = this.visible(run, extra).find((t) => t.name === name);
    if (!tool) {
      const names = this.visible(run, extra).map((t) => t.name);
      throw new EnclaveError(
        "unknown_tool",
        `unknown tool \`${name}\`: this run (surface \`${run.surface}\`) offers ${names.length ? names.map((n) => `\`${n}\``).join(", ") : "no tools"}`,
      );
    }
    return tool;
  }
}
