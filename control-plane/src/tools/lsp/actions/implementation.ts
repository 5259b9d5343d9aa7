// implementation: the concrete implementations of an interface, abstract method or declaration.
import { locationsAction } from "./locations-action.js";

export const implementationAction = locationsAction("implementation", "implementation", 50);
