// step_over: one line, over calls.
import { resumeOp } from "./resume-op.js";

export const stepOverOp = resumeOp("step_over", "next", "stepped over");
