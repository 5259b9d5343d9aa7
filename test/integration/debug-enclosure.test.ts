// The debug tool in an enclosure on the real Docker engine: the same scenarios as on the host, with
// the adapters the runtime image carries, under the enclosure's hardening.
import { debugScenarios } from "../helpers/debug-scenarios.js";

debugScenarios("enclosure");
