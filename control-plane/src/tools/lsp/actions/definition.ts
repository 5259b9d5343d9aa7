// definition: where the symbol is declared.
import { locationsAction } from "./locations-action.js";

export const definitionAction = locationsAction("definition", "definition", 50);
