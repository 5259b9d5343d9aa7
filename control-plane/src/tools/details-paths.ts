// Paths in a tool's details: workspace-relative only. The agent names a file outside the workspace (a
// library's declaration, a runtime's own frame) by its absolute path, which is the machine's, not the
// project's: details give null there rather than a path of the host.
import { isAbsolute } from "node:path";

/** `p` when it is workspace-relative; null when it is absolute, a URI, or empty. */
export function workspaceRelative(p: string): string | null {
  if (p === "" || isAbsolute(p) || /^[a-z][\w+.-]*:/i.test(p)) return null;
  return p;
}
