// The parts of a tool result a test compares apart: exec sends the command's output and how it ended
// as separate parts, so the ending can be recorded whole while the program's own output is checked
// on its own terms.
import type { ToolResult } from "@enclave/proto/gen/enclave/control/v1/control.js";

/** The text of a result's last part (exec's "[exit code 0, 12 ms]"), "" when it is not text. */
export function endingText(r: ToolResult): string {
  const part = r.parts.at(-1)?.part;
  return part?.$case === "text" ? part.value : "";
}
