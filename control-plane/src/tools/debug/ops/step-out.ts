// step_out: run until the current function returns.
import { DebugResumeKind } from "@enclave/proto/gen/enclave/agent/v1/debug.js";
import { resumeOp } from "./resume-op.js";

export const stepOutOp = resumeOp("step_out", DebugResumeKind.DEBUG_RESUME_KIND_STEP_OUT, "stepped out");
