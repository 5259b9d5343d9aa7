// One caller's view of the control plane: the records of its own tenant (all of them for an
// operator). Another tenant's conversation or run answers with the very error a missing one does,
// so ids cannot be probed. Every RPC handler goes through this before it touches anything.
import type { Card } from "@enclave/proto/gen/enclave/control/v1/control.js";
import type { AuditEvent } from "../audit/audit-log.js";
import type { ConversationView } from "../control-plane.js";
import type { ControlPlaneApi } from "../control-plane-api.js";
import { keyFor, viewId } from "../conversations/conversation-keys.js";
import { noConversation } from "../conversations/conversation-store.js";
import { asEnclaveError, EnclaveError } from "../errors.js";
import { redactHostPaths } from "./host-path-redaction.js";
import type { EnclosureRequest } from "../model/enclosure.js";
import { noRun } from "../runs/run-store.js";
import type { Run } from "../model/run.js";
import { mayAccess, type Tenant } from "../tenants/tenant.js";

export class TenantScope {
  constructor(
    private readonly cp: ControlPlaneApi,
    readonly tenant: Tenant,
    /** False for the implicit tenant of a control plane without tokens. */
    readonly tokensRequired: boolean,
  ) {}

  /** Whether a record owned by `owner` is the caller's to see. */
  sees(owner: string): boolean {
    return mayAccess(this.tenant, owner);
  }

  /** Whether the conversation with this key exists and is the caller's. */
  hasConversation(key: string): boolean {
    try {
      return this.sees(this.cp.conversationTenant(key));
    } catch (err) {
      if (err instanceof EnclaveError && err.code === "not_found") return false;
      throw err;
    }
  }

  /**
   * The key the caller means by a conversation id (see conversations/conversation-keys.ts): a bare
   * id is in its own namespace; only an operator may name another tenant's, as `<tenant>.<id>`.
   * Any other shape is invalid_arguments, whether or not such a conversation exists.
   */
  key(id: string): string {
    return keyFor(this.tenant.name, this.tenant.operator, id);
  }

  /** What the caller calls the conversation with this key (its bare id, when it is its own). */
  view(key: string): string {
    return viewId(this.tenant.name, key);
  }

  /**
   * Whether the caller may learn host paths (a conversation's workspace folder): only those who may
   * name one, the implicit tenant and operators. A token tenant's workspaces are all the data
   * folder's, so it is told none (workspace_path is empty).
   */
  get seesHostPaths(): boolean {
    return !this.tokensRequired || this.tenant.operator;
  }

  /** `view`, bound: for mapping. */
  readonly viewer = (key: string): string => this.view(key);

  /** Text as the caller may see it: the data folder named by its role for one who sees no host paths. */
  readonly pathless = (text: string): string => (this.seesHostPaths ? text : redactHostPaths(text, this.cp.dataDir));

  /** A result's details as the caller may see them: every string of a failure's details is pathless, as its text is. */
  detailsView(details: unknown, isError: boolean): unknown {
    if (this.seesHostPaths || !isError) return details;
    const walk = (v: unknown): unknown =>
      typeof v === "string"
        ? this.pathless(v)
        : Array.isArray(v)
          ? v.map(walk)
          : v !== null && typeof v === "object"
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]))
            : v;
    return walk(details);
  }

  /** An error as the caller may see it (see pathless). */
  errorView(err: unknown): EnclaveError {
    const e = asEnclaveError(err);
    const message = this.pathless(e.message);
    return message === e.message ? e : new EnclaveError(e.code, message);
  }

  /** An audit event as the caller sees it (conversation ids in its own terms, no host path). */
  readonly auditView = (e: AuditEvent): AuditEvent => {
    const seen = e.conversationId ? { ...e, conversationId: this.view(e.conversationId) } : e;
    return this.seesHostPaths ? seen : { ...seen, detail: this.pathless(seen.detail), placement: this.pathless(seen.placement) };
  };

  /** A card as the caller sees it. */
  cardView(card: Card): Card {
    return { ...card, conversationId: this.view(card.conversationId) };
  }

  /** The caller's conversation, or not_found exactly as for a missing one. */
  conversation(id: string): ConversationView {
    return this.cp.getConversation(this.conversationId(id));
  }

  /** Checks the conversation is the caller's (not_found otherwise) and returns its key. */
  conversationId(id: string): string {
    const key = this.key(id);
    if (!this.hasConversation(key)) throw noConversation(id);
    return key;
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
