// Each tenant has its own namespace of conversation ids: tenant B may have an "x" beside tenant A's
// "x", and neither can learn the other's exists. Callers see and send bare ids; inside, a
// conversation is known by its key — the bare id for the implicit tenant (so a control plane without
// tokens keeps the layout it always had), `<tenant>.<id>` for any other. '.' is in neither a tenant
// name nor a bare id, so a key names one (tenant, id) only, and a bare id can never name a key of
// another tenant. Everything keyed by conversation (workspace and state folders, container names and
// labels, runs, cards, audit entries, the state database) uses the key.
import { EnclaveError } from "../errors.js";
import { IMPLICIT_TENANT } from "../tenants/implicit-tenant.js";

const ID_RE = /^[A-Za-z0-9_-]{1,64}$/;
// Kept in step with tenants/tenant.ts's names (that module imports this one's store, so not from there).
const TENANT_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

export const KEY_SEPARATOR = ".";

export function isConversationId(id: string): boolean {
  return ID_RE.test(id);
}

export function invalidConversationId(id: string): EnclaveError {
  return new EnclaveError("invalid_arguments", `conversation id \`${id}\` is not valid: use 1–64 letters, digits, '-' or '_'`);
}

/** The key of a tenant's conversation `id` (a bare id, already checked). */
export function conversationKey(tenant: string, id: string): string {
  return tenant === IMPLICIT_TENANT ? id : `${tenant}${KEY_SEPARATOR}${id}`;
}

/** The tenant and bare id a key stands for. */
export function splitKey(key: string): { tenant: string; id: string } {
  const i = key.indexOf(KEY_SEPARATOR);
  return i < 0 ? { tenant: IMPLICIT_TENANT, id: key } : { tenant: key.slice(0, i), id: key.slice(i + 1) };
}

/**
 * What a caller of tenant `viewer` calls the conversation with this key: its bare id in the
 * caller's own namespace, `<tenant>.<id>` for another tenant's (only operators see those).
 */
export function viewId(viewer: string, key: string): string {
  if (!key) return key;
  const { tenant, id } = splitKey(key);
  return tenant === viewer ? id : `${tenant}${KEY_SEPARATOR}${id}`;
}

/**
 * The key a caller of tenant `caller` means by `id`: a bare id is in its own namespace; an operator
 * may name another tenant's as `<tenant>.<id>`. Anything else is refused with invalid_arguments,
 * whether or not such a conversation exists.
 */
export function keyFor(caller: string, operator: boolean, id: string): string {
  if (ID_RE.test(id)) return conversationKey(caller, id);
  if (operator) {
    const { tenant, id: bare } = splitKey(id);
    if (id.includes(KEY_SEPARATOR) && TENANT_RE.test(tenant) && ID_RE.test(bare)) return conversationKey(tenant, bare);
  }
  throw invalidConversationId(id);
}

/** The id a tenant itself knows the conversation by, for messages a caller reads (never the key's tenant). */
export function bareId(key: string): string {
  return splitKey(key).id;
}
