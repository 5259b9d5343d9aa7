// definition: where the symbol is declared.
import { LspQueryKind } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { locationsAction } from "./locations-action.js";

export const definitionAction = locationsAction("definition", LspQueryKind.LSP_QUERY_KIND_DEFINITION, "definition", 50);
