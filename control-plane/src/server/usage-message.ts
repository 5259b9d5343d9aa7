// A conversation's usage as the API sends it. `text` rewrites what is said in words (a tenant's
// caller is told no host path: an unreadable cgroup or workspace names one in its error).
import type { ConversationUsage as ConversationUsageMsg } from "@enclave/proto/gen/enclave/control/v1/control.js";
import type { ConversationUsage } from "../model/usage.js";

export function usageMessage(u: ConversationUsage, text: (s: string) => string = (s) => s): ConversationUsageMsg {
  return {
    measuredAtMs: u.measuredAtMs,
    cgroup: u.cgroup ? { ...u.cgroup, source: text(u.cgroup.source) } : undefined,
    cgroupUnavailable: text(u.cgroupUnavailable),
    engine: u.engine,
    engineUnavailable: text(u.engineUnavailable),
    workspace: u.workspace ? { ...u.workspace, note: text(u.workspace.note) } : undefined,
    workspaceUnavailable: text(u.workspaceUnavailable),
  };
}
