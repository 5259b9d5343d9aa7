// references: every use of the symbol, the declaration included, capped.
import { LIMITS } from "../../../limits.js";
import { LspQueryKind } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { locationsAction } from "./locations-action.js";

export const referencesAction = locationsAction("references", LspQueryKind.LSP_QUERY_KIND_REFERENCES, "reference", LIMITS.lspReferencesCap);
