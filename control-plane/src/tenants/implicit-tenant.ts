// The tenant of a control plane without tokens, and of every record made before tenants existed.
export const IMPLICIT_TENANT = "local";

/** The tenant a record belongs to: its own, else the implicit one. */
export function tenantOf(record: object): string {
  const t = (record as { tenant?: unknown }).tenant;
  return typeof t === "string" && t ? t : IMPLICIT_TENANT;
}
