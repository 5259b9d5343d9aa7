// step_over: one line, over calls.
import { DebugResumeKind } from "@enclave/proto/gen/enclave/agent/v1/debug.js";
import { resumeOp } from "./resume-op.js";

export const stepOverOp = resumeOp("step_over", DebugResumeKind.DEBUG_RESUME_KIND_STEP_OVER, "stepped over");
