// Stack traces as a cell's author should see them: positions in any cell of this kernel mapped back
// from the rewritten source to the cell's own text (`at thrower (<cell 1>:2:9)`), the runner's
// wrapper and plumbing (node:vm, the runner module, the event loop's task queues and timers) left
// out, and nothing below the last frame of the user's own code (a cell, or a file it imported).
// Installed as Error.prepareStackTrace, so every stack is made this way: a thrown error's, an echoed
// or printed one's, and one thrown by work a cell left running.
import type { CellPositions } from "./rewrite-cell.js";

/** How much of the past cells' position maps is kept (numbers in them); the oldest go first, and a
 * frame in a forgotten cell keeps its raw position. */
const REMEMBERED_NUMBERS = 4_000_000;

const CELL_POSITION = /<cell (\d+)>:(\d+):(\d+)/g;
const FRAME = /^\s+at /;
/** Frames of the machinery between the runner and a cell: how the cell was run, not what it did. */
const PLUMBING = /[( ](node:vm|node:internal\/vm|node:internal\/process\/task_queues|node:internal\/timers|node:async_hooks)[:)]/;

export class CellStacks {
  private readonly cells = new Map<string, CellPositions>();
  private remembered = 0;

  /** runnerFiles: locations (URLs or paths) of the runner's own code, whose frames are never shown. */
  constructor(private readonly runnerFiles: string[]) {}

  remember(cellName: string, positions: CellPositions): void {
    this.forget(cellName);
    this.cells.set(cellName, positions);
    this.remembered += positions.size;
    while (this.remembered > REMEMBERED_NUMBERS && this.cells.size > 1) {
      const oldest = this.cells.keys().next().value;
      if (oldest === undefined) break;
      this.forget(oldest);
    }
  }

  private forget(cellName: string): void {
    const known = this.cells.get(cellName);
    if (!known) return;
    this.remembered -= known.size;
    this.cells.delete(cellName);
  }

  /** One frame line with its cell positions mapped; undefined when it points into the runner's wrapper. */
  private mapFrame(line: string): string | undefined {
    let wrapper = false;
    const mapped = line.replace(CELL_POSITION, (whole, n: string, l: string, c: string) => {
      const positions = this.cells.get(`<cell ${n}>`);
      if (!positions) return whole;
      const at = positions.toCell({ line: Number(l), column: Number(c) });
      if (!at) {
        wrapper = true;
        return whole;
      }
      return `<cell ${n}>:${at.line}:${at.column}`;
    });
    return wrapper ? undefined : mapped;
  }

  private isRunner(line: string): boolean {
    return PLUMBING.test(line) || this.runnerFiles.some((f) => f && line.includes(f));
  }

  private static isUser(line: string): boolean {
    if (/<cell \d+>:\d+/.test(line)) return true;
    const where = /\(([^()]*)\)\s*$/.exec(line)?.[1] ?? line.replace(FRAME, "").replace(/^async /, "");
    return !/^(node:|<anonymous>|native|internal\/)/.test(where.trim()) && /:\d+:\d+$/.test(where.trim());
  }

  /** The stack text with cell positions mapped and only the frames a user should see. */
  clean(stack: string): string {
    const lines = stack.split("\n");
    const frames: Array<{ index: number; text: string; user: boolean }> = [];
    const out: Array<string | undefined> = lines.map((line, index) => {
      if (!FRAME.test(line)) return line;
      if (this.isRunner(line)) return undefined;
      const text = this.mapFrame(line);
      if (text === undefined) return undefined;
      frames.push({ index, text, user: CellStacks.isUser(text) });
      return text;
    });
    const lastUser = [...frames].reverse().find((f) => f.user);
    if (lastUser) for (const f of frames) if (f.index > lastUser.index) out[f.index] = undefined;
    return out.filter((l): l is string => l !== undefined).join("\n");
  }

  /** Makes every stack in this process the cleaned one (a cell that sets its own keeps its own). */
  install(): void {
    Error.prepareStackTrace = (error: Error, trace: NodeJS.CallSite[]): string => {
      let head: string;
      try {
        head = Error.prototype.toString.call(error);
      } catch {
        head = "<error>";
      }
      return trace.length ? this.clean(`${head}\n    at ${trace.join("\n    at ")}`) : head;
    };
  }
}
