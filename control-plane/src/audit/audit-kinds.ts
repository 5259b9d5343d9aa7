// Every kind of event the audit log records, in one table: the log's input type takes only these, so
// a kind recorded anywhere is one the console's filter (and its unit test) already offers.

/** Kind → what it records (AuditEvent.kind in control.proto). */
export const AUDIT_KIND_TABLE = {
  tool_call: "a tool call, by the model or a cell's bridge",
  card_closed: "a permission card or question closed (outcome: its state)",
  enclosure_started: "an enclosure started",
  enclosure_stopped: "an enclosure stopped",
  enclosure_died: "an enclosure died",
  enclosure_paused: "an enclosure paused with its memory, or a pause refused (outcome error:CODE); detail: by whom",
  enclosure_resumed: "a paused enclosure resumed (by whom: a caller, or a call's auto-resume), or a resume failed (outcome error:resume_failed)",
  conversation_created: "a conversation created",
  conversation_deleted: "a conversation deleted",
  conversation_forked: "a conversation forked from another (detail: the source, who forked it, what was copied)",
  agent_restarted: "a host agent restarted after it was lost",
  worker_started: "a vibe worker started",
  worker_settled: "a vibe worker settled (outcome: its state)",
  audit_pruned: "the retention deleted events (detail: how many and why)",
  agent_bundle_refused: "an enclosure start refused: the shared agent volume is not the bundle",
  api_started: "the API listens (TLS, tokens, any weakening)",
  call_refused: "a call refused (a bad token, an argument past a bound)",
  image_refused: "an enclosure start refused for its image",
  quota_exceeded: "a call refused at one of its tenant's quotas",
  operator_action:
    "an operator's hands on a running thing (tool: cancel_call, stop_kernel, stop_host_agent, close_run, delete_conversation, force_stop_enclosure; detail: by whom)",
  conversation_slept: "a conversation's placement put to sleep (outcome: why: idle, max_lifetime, tenant_paused, operator)",
  conversation_woke: "a sleeping conversation woke for a call (outcome ok, or error:<code> when its placement could not start)",
  tenant_paused: "an operator paused a tenant (detail: who, and why)",
  tenant_resumed: "an operator resumed a paused tenant (detail: who)",
  stream_cut: "a stream ended by the control plane (tool: the stream's kind; outcome cut:slow_reader or cut:unauthenticated, a revoked token)",
  egress:
    "a request through the egress proxy (tool: method and destination; outcome ok, refused:<why> or error:<why>; detail: the address dialled and bytes each way)",
  egress_policy: "a conversation's egress policy set (detail: by whom, and the destinations)",
} as const;

export type AuditKind = keyof typeof AUDIT_KIND_TABLE;

export const AUDIT_KIND_NAMES = Object.keys(AUDIT_KIND_TABLE) as AuditKind[];
