// One caller's view of the control plane: the records of its own tenant (all of them for an
// operator). Another tenant's conversation or run answers with the very error a missing one does,
// so ids cannot be probed. Every RPC handler goes through this before it touches anything.
import type { ControlPlaneFacade, ConversationView } from "../control-plane.js";
import { noConversation } from "../conversations/conversation-store.js";
import { EnclaveError } from "../errors.js";
import type { EnclosureRequest } from "../placement/enclosure-settings.js";
import { noRun, type Run } from "../runs/run-store.js";
import { mayAccess, type Tenant } from "../tenants/tenant.js";

export class TenantScope {
  constructor(
    private readonly cp: ControlPlaneFacade,
    readonly tenant: Tenant,
    /** False for the implicit tenant of a control plane without tokens. */
    readonly tokensRequired: boolean,
  ) {}

  /** Whether a record owned by `owner` is the caller's to see. */
  sees(owner: string): boolean {
    return mayAccess(this.tenant, owner);
  }

  /** Whether the conversation exists and is the caller's. */
  hasConversation(id: string): boolean {
    try {
      return this.sees(this.cp.conversationTenant(id));
    } catch (err) {
      if (err instanceof EnclaveError && err.code === "not_found") return false;
      throw err;
    }
  }

  /** The caller's conversation, or not_found exactly as for a missing one. */
  conversation(id: string): ConversationView {
    if (!this.hasConversation(id)) throw noConversation(id);
    return this.cp.getConversation(id);
  }

  /** Checks the conversation is the caller's (not_found otherwise) and returns its id. */
  conversationId(id: string): string {
    if (!this.hasConversation(id)) throw noConversation(id);
    return id;
  }

  /** The caller's open run, or not_found exactly as for a run that is not open. */
  run(id: string): Run {
    let run: Run;
    try {
      run = this.cp.run(id);
    } catch (err) {
      if (err instanceof EnclaveError && err.code === "not_found") throw noRun(id);
      throw err;
    }
    if (!this.sees(run.tenant)) throw noRun(id);
    return run;
  }

  /**
   * A tenant's own conversations live in folders the control plane makes: naming a host folder as a
   * workspace would hand a remote caller the host's files (or another tenant's). Only the implicit
   * tenant and operators may.
   */
  checkWorkspacePath(workspacePath: string): void {
    if (workspacePath && this.tokensRequired && !this.tenant.operator) {
      throw new EnclaveError(
        "invalid_arguments",
        `tenant \`${this.tenant.name}\` cannot name a host folder as a workspace (workspace_path ${workspacePath}); leave it empty and the control plane makes one, or ask an operator`,
      );
    }
  }

  /**
   * The enclosure options that weaken its hardening (network, capabilities, a writable root, new
   * privileges) are an operator's choice on a shared control plane, not a tenant's.
   */
  checkEnclosureRequest(req: EnclosureRequest): void {
    if (!this.tokensRequired || this.tenant.operator) return;
    const weakenings = [
      req.networkMode && req.networkMode !== "none" ? `network_mode ${req.networkMode}` : "",
      req.keepCapabilities?.length ? `keep_capabilities ${req.keepCapabilities.join(",")}` : "",
      req.writableRoot ? "writable_root" : "",
      req.allowNewPrivileges ? "allow_new_privileges" : "",
    ].filter(Boolean);
    if (weakenings.length) {
      throw new EnclaveError(
        "invalid_arguments",
        `tenant \`${this.tenant.name}\` cannot weaken an enclosure (${weakenings.join(", ")}); start it hardened, or ask an operator`,
      );
    }
  }
}
