// step_in: one step, into the call on this line.
import { DebugResumeKind } from "@enclave/proto/gen/enclave/agent/v1/debug.js";
import { resumeOp } from "./resume-op.js";

export const stepInOp = resumeOp("step_in", DebugResumeKind.DEBUG_RESUME_KIND_STEP_IN, "stepped in");
