// The approver behind the permission gate: a `permission` card on the question port, in the run's
// target space, with the options allow / deny. Only an explicit allow lets the call run.
import { LIMITS } from "../limits.js";
import { EnclaveError } from "../errors.js";
import type { QuestionPort } from "../questions/question-port.js";
import type { ApprovalRequest, Approver } from "./approval-gate.js";

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}… (${s.length - max} more characters)`;
}

export class CardApprover implements Approver {
  constructor(
    private readonly port: QuestionPort,
    private readonly defaultTimeoutMs: () => number,
  ) {}

  async approve(req: ApprovalRequest, signal: AbortSignal): Promise<boolean> {
    const { run, tool } = req;
    const argsJson = JSON.stringify(req.args, null, 2) ?? "{}";
    const timeoutMs = run.questionTimeoutMs || this.defaultTimeoutMs();
    const nothing = "nothing was run";
    const outcome = await this.port.raise({
      space: run.targetSpace,
      kind: "permission",
      question: `Allow \`${tool.name}\` with these arguments?`,
      context: `Run ${run.id} (conversation ${run.conversationId}, approval policy \`${run.approvalPolicy}\`) wants to call \`${tool.name}\` (tier ${tool.tier}):\n${clip(argsJson, LIMITS.permissionContextChars)}`,
      options: [
        { label: "allow", description: "run this call" },
        { label: "deny", description: "refuse it; nothing runs" },
      ],
      allowFreeText: false,
      multiSelect: false,
      runId: run.id,
      tool: tool.name,
      argumentsJson: clip(JSON.stringify(req.args) ?? "{}", LIMITS.permissionArgumentsChars),
      timeoutMs,
      signal,
    });
    switch (outcome.state) {
      case "answered":
        if (outcome.selected[0] === "allow") return true;
        throw new EnclaveError("approval_refused", `the operator denied \`${tool.name}\` on permission card #${outcome.card.number}; ${nothing}`);
      case "skipped":
        throw new EnclaveError("approval_refused", `the operator skipped permission card #${outcome.card.number} for \`${tool.name}\`, which counts as a denial; ${nothing}`);
      case "timed_out":
        throw new EnclaveError(
          "approval_refused",
          `nobody answered permission card #${outcome.card.number} for \`${tool.name}\` within ${Math.round(timeoutMs / 1000)} s; ${nothing}`,
        );
      case "no_subscriber":
        throw new EnclaveError(
          "approval_refused",
          `\`${tool.name}\` needs approval under this run's policy \`${run.approvalPolicy}\`, and nobody is attached to conversation \`${outcome.space}\` to answer a permission card, so ${nothing}. ` +
            "Attach an operator (SubscribeCards, or `enclave cards --follow`), or open the run with approval_policy `never`.",
        );
    }
  }
}
