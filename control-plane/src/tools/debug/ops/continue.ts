// continue: run to the next stop (a breakpoint, an exception, the end).
import { resumeOp } from "./resume-op.js";

export const continueOp = resumeOp("continue", "continue", "continued");
