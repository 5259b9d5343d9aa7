// Refused calls are recorded at most once per interval per key (the whole server for bad tokens, a
// tenant for its own refusals), with a count of the rest: a flood of refused calls must not push real
// events out of a size-bounded audit log, nor one tenant's flood push out another tenant's events.
import { LIMITS } from "../limits.js";
import type { AuditInput } from "./audit-log.js";

export class RefusalAudit {
  private readonly seen = new Map<string, { lastMs: number; unrecorded: number }>();

  constructor(private readonly record: (input: AuditInput) => void) {}

  /** Records the refusal, or counts it into the next record when one under `key` was made this interval. */
  refused(key: string, input: AuditInput & { detail: string }): void {
    const now = Date.now();
    const seen = this.seen.get(key);
    if (seen && now - seen.lastMs < LIMITS.refusedCallAuditIntervalMs) {
      seen.unrecorded++;
      return;
    }
    const more = seen?.unrecorded ? `; ${seen.unrecorded} more refused since the last record` : "";
    this.record({ ...input, detail: `${input.detail}${more}` });
    this.seen.set(key, { lastMs: now, unrecorded: 0 });
  }
}
