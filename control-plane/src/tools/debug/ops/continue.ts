// continue: run to the next stop (a breakpoint, an exception, the end).
import { DebugResumeKind } from "@enclave/proto/gen/enclave/agent/v1/debug.js";
import { resumeOp } from "./resume-op.js";

export const continueOp = resumeOp("continue", DebugResumeKind.DEBUG_RESUME_KIND_CONTINUE, "continued");
