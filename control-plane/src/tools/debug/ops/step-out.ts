// step_out: run until the current function returns.
import { resumeOp } from "./resume-op.js";

export const stepOutOp = resumeOp("step_out", "stepOut", "stepped out");
