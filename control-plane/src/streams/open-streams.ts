// Every long-lived stream the control plane writes to, API and console alike, with the tenant and
// token that opened it: a tenant holds at most LIMITS.tenantStreams of each kind at once, and a
// revoked token's streams are ended (the token file's reload names which tokens went). One account
// for the API and the console alike, so a refusal is audited the same from either.
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";

export type StreamKind = keyof typeof LIMITS.tenantStreams;

export interface StreamOwner {
  /** The tenant the stream counts against; undefined for one no tenant owns (the console's own token, a control plane without tokens). */
  tenant: string | undefined;
  /** The bearer token that opened it, ended with it; undefined when none did. */
  tokenId: string | undefined;
}

interface Entry extends StreamOwner {
  kind: StreamKind;
  end(err: EnclaveError): void;
}

export class OpenStreams {
  private readonly entries = new Set<Entry>();

  /**
   * `refused` is told of each stream refused for its tenant's bound, `cut` of each tenant's stream the
   * control plane ended (a slow reader, a revoked token): both for the audit log.
   */
  constructor(
    private readonly refused: (tenant: string, err: EnclaveError) => void = () => undefined,
    private readonly cut: (tenant: string, kind: StreamKind, err: EnclaveError) => void = () => undefined,
  ) {}

  /** Tells of a stream the control plane ended with `err` (its reader too slow); one no tenant owns is not told. */
  cutOff(kind: StreamKind, owner: StreamOwner, err: EnclaveError): void {
    if (owner.tenant !== undefined) this.cut(owner.tenant, kind, err);
  }

  /**
   * Counts a new stream against its tenant (quota_exceeded past its kind's bound); `end` is how it is
   * ended from outside (its token revoked). Returns the release, to call however the stream ends.
   */
  open(kind: StreamKind, owner: StreamOwner, end: (err: EnclaveError) => void): () => void {
    if (owner.tenant !== undefined) {
      const max = LIMITS.tenantStreams[kind];
      let held = 0;
      for (const e of this.entries) if (e.kind === kind && e.tenant === owner.tenant) held++;
      if (held >= max) {
        const err = new EnclaveError(
          "quota_exceeded",
          `tenant \`${owner.tenant}\` already holds ${held} ${kind} streams, the most one tenant may hold open at once; close one first`,
        );
        this.refused(owner.tenant, err);
        throw err;
      }
    }
    const entry: Entry = { kind, ...owner, end };
    this.entries.add(entry);
    return () => {
      this.entries.delete(entry);
    };
  }

  /** Ends every stream opened with one of these tokens (or with any token, when the file admits none now). */
  revoke(tokenIds: ReadonlySet<string> | "all"): number {
    const err = new EnclaveError("unauthenticated", "the token that opened this stream was revoked; the stream is ended");
    return this.endWhere((e) => e.tokenId !== undefined && (tokenIds === "all" || tokenIds.has(e.tokenId)), err);
  }

  /** Ends every stream the tenant holds, with `err` (its tenant was paused). */
  endTenant(tenant: string, err: EnclaveError): number {
    return this.endWhere((e) => e.tenant === tenant, err);
  }

  private endWhere(which: (e: Entry) => boolean, err: EnclaveError): number {
    const gone = [...this.entries].filter(which);
    for (const e of gone) {
      this.entries.delete(e);
      this.cutOff(e.kind, e, err);
      try {
        e.end(err);
      } catch {
        // One stream's failure to end must not keep the others open.
      }
    }
    return gone.length;
  }

  /** Streams of a kind a tenant holds now (for tests and status). */
  held(kind: StreamKind, tenant: string): number {
    let n = 0;
    for (const e of this.entries) if (e.kind === kind && e.tenant === tenant) n++;
    return n;
  }
}
