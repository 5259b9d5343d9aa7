// implementation: the concrete implementations of an interface, abstract method or declaration.
import { LspQueryKind } from "@enclave/proto/gen/enclave/agent/v1/lsp.js";
import { locationsAction } from "./locations-action.js";

export const implementationAction = locationsAction("implementation", LspQueryKind.LSP_QUERY_KIND_IMPLEMENTATION, "implementation", 50);
