// One check of the egress audit: what it proves, and how it judges the outside and inside views.
import type { AuditCheck } from "../audit-check.js";
import type { CheckView } from "./view.js";

export interface EnclosureCheck {
  /** The item's name in the report (AuditCheck.item). */
  id: string;
  /** What a passing check proves of the enclosure. */
  proves: string;
  /** Both halves of the check; `ok` only when the outside half holds and the inside half agrees. */
  run(view: CheckView): AuditCheck;
}
