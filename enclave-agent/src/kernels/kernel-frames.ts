// The frames a kernel runner and the agent exchange, one JSON object per line: kernel → agent on
// the kernel's fd 3, agent → kernel on its fd 4. The runners (python/, javascript/) speak the same.
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
  | { t: "call"; seq: number; id: string; tool: string; args: string }
  | { t: "done"; seq: number; id: string; status: "ok" | "error"; ename: string; evalue: string; traceback: string };

export type AgentFrame =
  | { t: "execute"; id: string; code: string; cell: number }
  | { t: "reply"; id: string; ok: boolean; code: string; text: string };
