// The metrics' per-tenant usage: every conversation read without the engine's stats (its cgroup
// answers for a local engine) and with the workspace's last measure only (a stale or missing one is
// redone in the background), so a scrape costs a few cgroup files per running placement.
import type { ConversationRecord } from "../model/conversation.js";
import type { UsageReader } from "./conversation-usage.js";
import { sumPerTenant, type TenantUsage } from "./tenant-usage.js";

export async function tenantUsage(conversations: readonly ConversationRecord[], reader: UsageReader): Promise<TenantUsage[]> {
  reader.forgetExcept(new Set(conversations.map((c) => c.id)));
  const figures = await Promise.all(
    conversations.map(async (c) => ({
      tenant: c.tenant,
      placement: c.enclosure ? ("enclosure" as const) : ("host" as const),
      usage: await reader.read(c, { engine: "remote", keptWorkspaceOnly: true }),
    })),
  );
  return sumPerTenant(figures);
}
