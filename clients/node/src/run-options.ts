// The names a run is opened with, as the control plane accepts them: a typo is a type error in the
// harness rather than an invalid_arguments answer at run time.

/** What a run's model is allowed: `plan` and `readonly_subagent` see only read tools. */
export type Surface = "default" | "plan" | "readonly_subagent";

/** When a human is asked: `never` (headless), `write` (before write and exec tools, the default) or `always`. */
export type ApprovalPolicy = "never" | "write" | "always";

export const SURFACES: readonly Surface[] = ["default", "plan", "readonly_subagent"];
export const APPROVAL_POLICIES: readonly ApprovalPolicy[] = ["never", "write", "always"];
