// The approver behind the permission gate: a `permission` card on the question port, in the run's
// target space, with the options allow / deny. Only an explicit allow lets the call run.
// The card names every file the call touches and carries the complete arguments (a preview on the
// card itself, all of it on request while it is open); anything shortened says so and where the
// rest is, so nobody approves what they could not see.
import { LIMITS } from "../limits.js";
import { EnclaveError } from "../errors.js";
import type { QuestionPort } from "../questions/question-port.js";
import type { Run } from "../model/run.js";
import type { PendingActionStore } from "../pending/pending-action-store.js";
import type { ApprovalRequest, Approver } from "./approval-gate.js";
import { displayPath, type TouchedFiles, touchedFiles } from "./touched-files.js";
import { bareId } from "../conversations/conversation-keys.js";

/** Where the complete arguments of an open card can be read, for every message that shows a part. */
function fullArgumentsHint(space: string): string {
  return `\`enclave cards ${space} --full\`, GetCardArguments, or the card's download link in the console`;
}

function filesLines(t: TouchedFiles): string[] {
  const lines = [
    t.files.length ? `Files it touches (${t.files.length}): ${t.files.map(displayPath).join(", ")}` : "Files it touches: none named in its arguments",
  ];
  if (t.note) lines.push(`(${t.note})`);
  return lines;
}

function argumentsLines(args: unknown, space: string): string[] {
  const pretty = JSON.stringify(args, null, 2) ?? "{}";
  if (pretty.length <= LIMITS.permissionContextChars) return ["Arguments:", pretty];
  return [
    `Arguments (the first ${LIMITS.permissionContextChars} of ${pretty.length} characters; all of them: ${fullArgumentsHint(space)}):`,
    `${pretty.slice(0, LIMITS.permissionContextChars)}…`,
  ];
}

/** A resolve without edit_id: it takes whichever staged change is most recent when it runs. */
function resolvesLatest(toolName: string, args: unknown): boolean {
  return toolName === "resolve" && (args as { edit_id?: unknown } | undefined)?.edit_id === undefined;
}

export class CardApprover implements Approver {
  constructor(
    private readonly port: QuestionPort,
    private readonly defaultTimeoutMs: () => number,
    /** The run's staged changes, so a resolve's card names the files it would write. */
    private readonly pendingOf: (run: Run) => PendingActionStore | undefined = () => undefined,
  ) {}

  async approve(req: ApprovalRequest, signal: AbortSignal): Promise<boolean> {
    const { run, tool } = req;
    const timeoutMs = run.questionTimeoutMs || this.defaultTimeoutMs();
    const nothing = "nothing was run";
    const store = this.pendingOf(run);
    const latest = resolvesLatest(tool.name, req.args);
    const shownTop = latest ? store?.peek()?.id : undefined;
    const touched = touchedFiles(tool.name, req.args, (editId) => (editId === undefined ? store?.peek() : store?.lookup(editId)));
    const space = run.targetSpace;
    const outcome = await this.port.raise({
      space,
      kind: "permission",
      question: `Allow \`${tool.name}\` with these arguments?`,
      context: [
        `Run ${run.id} (conversation ${bareId(run.conversationId)}, approval policy \`${run.approvalPolicy}\`) wants to call \`${tool.name}\` (tier ${tool.tier}).`,
        ...filesLines(touched),
        ...argumentsLines(req.args, space),
      ].join("\n"),
      options: [
        { label: "allow", description: "run this call" },
        { label: "deny", description: "refuse it; nothing runs" },
      ],
      allowFreeText: false,
      multiSelect: false,
      runId: run.id,
      tool: tool.name,
      argumentsJson: JSON.stringify(req.args) ?? "{}",
      files: touched.files,
      filesNote: touched.note,
      timeoutMs,
      signal,
    });
    switch (outcome.state) {
      case "answered":
        if (outcome.selected[0] === "allow") {
          // A resolve without edit_id takes the most recent change: if another was staged while the
          // card was open, the person allowed files this call would no longer write.
          if (latest && store?.peek()?.id !== shownTop) {
            throw new EnclaveError(
              "approval_refused",
              `the most recent staged change is now ${store?.peek()?.id ?? "none"}, not ${shownTop ?? "none"} as shown on permission card #${outcome.card.number}; ${nothing}. Call resolve again (with edit_id).`,
            );
          }
          return true;
        }
        throw new EnclaveError("approval_refused", `the operator denied \`${tool.name}\` on permission card #${outcome.card.number}; ${nothing}`);
      case "skipped":
        throw new EnclaveError(
          "approval_refused",
          `the operator dismissed permission card #${outcome.card.number} for \`${tool.name}\` without answering, which counts as a denial; ${nothing}`,
        );
      case "timed_out":
        throw new EnclaveError(
          "approval_refused",
          `nobody answered permission card #${outcome.card.number} for \`${tool.name}\` within ${Math.round(timeoutMs / 1000)} s; ${nothing}`,
        );
      case "no_subscriber":
        throw new EnclaveError(
          "approval_refused",
          `\`${tool.name}\` needs approval under this run's policy \`${run.approvalPolicy}\`, and nobody is attached to conversation \`${bareId(outcome.space)}\` to answer a permission card, so ${nothing}. ` +
            "Attach an operator (SubscribeCards, or `enclave cards --follow`), or open the run with approval_policy `never`.",
        );
    }
  }
}
