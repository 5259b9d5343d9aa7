// type_definition: where the symbol's type is declared.
import { locationsAction } from "./locations-action.js";

export const typeDefinitionAction = locationsAction("type_definition", "type definition", 50);
