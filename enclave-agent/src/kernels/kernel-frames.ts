// The frames a kernel runner and the agent exchange, one JSON object per line: kernel → agent on
// the kernel's fd 3, agent → kernel on its fd 4. The runners (python/, javascript/) speak the same.
// A cell's code can write to fd 3 too, so every frame from a kernel is checked before it is used.
export interface MimeFrameItem {
  mime: string;
  /** Text representations. */
  text?: string;
  /** Binary ones (images), base64. */
  b64?: string;
}

export type KernelFrame =
  | { t: "ready"; seq: number; pid: number; interpreter: string }
  | { t: "display"; seq: number; echo: boolean; items: MimeFrameItem[] }
  /** cell: the id of the cell that made the call (for a thread or a timer: the cell that started it). */
  | { t: "call"; seq: number; id: string; tool: string; args: string; cell: string }
  | { t: "done"; seq: number; id: string; status: "ok" | "error"; ename: string; evalue: string; traceback: string };

export type AgentFrame = { t: "execute"; id: string; code: string; cell: number } | { t: "reply"; id: string; ok: boolean; code: string; text: string };

type Fields = Record<string, unknown>;

const isString = (v: unknown): v is string => typeof v === "string";
const isSeq = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

function isItem(v: unknown): v is MimeFrameItem {
  if (v === null || typeof v !== "object") return false;
  const i = v as Fields;
  return isString(i.mime) && (i.text === undefined || isString(i.text)) && (i.b64 === undefined || isString(i.b64));
}

/** The frame a parsed line holds, or undefined when it is not one the runners send. */
export function asKernelFrame(v: unknown): KernelFrame | undefined {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return undefined;
  const f = v as Fields;
  if (!isSeq(f.seq)) return undefined;
  switch (f.t) {
    case "ready":
      return typeof f.pid === "number" && isString(f.interpreter) ? (f as KernelFrame) : undefined;
    case "display":
      return typeof f.echo === "boolean" && Array.isArray(f.items) && f.items.every(isItem) ? (f as KernelFrame) : undefined;
    case "call":
      return isString(f.id) && isString(f.tool) && isString(f.args) && isString(f.cell) ? (f as KernelFrame) : undefined;
    case "done":
      return isString(f.id) && (f.status === "ok" || f.status === "error") && isString(f.ename) && isString(f.evalue) && isString(f.traceback)
        ? (f as KernelFrame)
        : undefined;
    default:
      return undefined;
  }
}
