// The permission gate: a run's approval policy decides which calls need a human's yes first.
// The control plane connects the card approver (a permission card on the question port); a gate
// with no approver, like a card nobody is attached to answer, fails closed: nothing runs.
import { EnclaveError } from "../errors.js";
import type { Run } from "../model/run.js";
import type { Tool } from "../tools/tool.js";

export interface ApprovalRequest {
  run: Run;
  tool: Tool;
  args: unknown;
}

/** Something that can ask a human; answers true to allow. */
export interface Approver {
  approve(req: ApprovalRequest, signal: AbortSignal): Promise<boolean>;
}

export function needsApproval(run: Run, tool: Tool): boolean {
  switch (run.approvalPolicy) {
    case "never":
      return false;
    case "write":
      return tool.tier === "write" || tool.tier === "exec";
    case "always":
      return true;
  }
}

export class ApprovalGate {
  constructor(private approver: Approver | undefined = undefined) {}

  connect(approver: Approver | undefined): void {
    this.approver = approver;
  }

  async check(req: ApprovalRequest, signal: AbortSignal): Promise<void> {
    if (!needsApproval(req.run, req.tool)) return;
    if (!this.approver) {
      throw new EnclaveError(
        "approval_refused",
        `\`${req.tool.name}\` needs approval under this run's policy \`${req.run.approvalPolicy}\`, and no approver is connected, so nothing was run. ` +
          `Connect an operator to answer permission cards, or open the run with approval_policy \`never\`.`,
      );
    }
    if (!(await this.approver.approve(req, signal))) {
      throw new EnclaveError("approval_refused", `the operator denied \`${req.tool.name}\`; nothing was run`);
    }
  }
}
