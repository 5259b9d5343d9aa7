// step_in: one step, into the call on this line.
import { resumeOp } from "./resume-op.js";

export const stepInOp = resumeOp("step_in", "stepIn", "stepped in");
