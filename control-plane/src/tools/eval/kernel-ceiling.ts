// The widest surface a kernel's bridge calls may have: the narrowest any cell run in that kernel
// process has had. Code a cell leaves in its kernel (a thread, a timer, a function it replaced)
// runs on into later cells and can make its calls look like theirs, so a cell limited by
// bridge_surface limits the kernel until it is reset, not only itself.
import { SURFACE_TIERS, SURFACES, type Surface } from "../../model/run.js";

/** Whether every tier surface a allows, b allows too. */
export function surfaceWithin(a: Surface, b: Surface): boolean {
  const allowed = SURFACE_TIERS[b];
  return SURFACE_TIERS[a].every((t) => allowed.includes(t));
}

/** The widest surface within both a and b (a itself when it is within b). */
function meet(a: Surface, b: Surface): Surface {
  if (surfaceWithin(a, b)) return a;
  if (surfaceWithin(b, a)) return b;
  const both = SURFACES.filter((s) => surfaceWithin(s, a) && surfaceWithin(s, b));
  return both.reduce((best, s) => (SURFACE_TIERS[s].length > SURFACE_TIERS[best].length ? s : best), both[0] ?? "plan");
}

export class KernelCeilings {
  /** Per conversation and language: the kernel seen last and its ceiling. */
  private readonly kernels = new Map<string, { kernelId: string; ceiling: Surface }>();

  /**
   * Records a cell with surface `cell` in kernel `kernelId` and returns what its bridge calls may
   * reach. A kernel id not seen before (a fresh kernel, a reset) starts from the cell's own surface.
   */
  enter(conversationId: string, language: string, kernelId: string, cell: Surface): Surface {
    const key = `${conversationId}\u0000${language}`;
    const known = this.kernels.get(key);
    const ceiling = known && known.kernelId === kernelId ? meet(known.ceiling, cell) : cell;
    this.kernels.set(key, { kernelId, ceiling });
    return ceiling;
  }
}

/** One for the control plane process: kernel ids are random per kernel process. */
export const kernelCeilings = new KernelCeilings();
