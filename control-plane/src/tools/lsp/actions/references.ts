// references: every use of the symbol, the declaration included, capped.
import { LIMITS } from "../../../limits.js";
import { locationsAction } from "./locations-action.js";

export const referencesAction = locationsAction("references", "reference", LIMITS.lspReferencesCap);
