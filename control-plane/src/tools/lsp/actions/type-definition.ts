// type_definition: where the symbol's type is declared.
import { LspQueryKind } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { locationsAction } from "./locations-action.js";

export const typeDefinitionAction = locationsAction("type_definition", LspQueryKind.LSP_QUERY_KIND_TYPE_DEFINITION, "type definition", 50);
