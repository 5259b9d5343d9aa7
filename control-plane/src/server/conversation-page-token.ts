// ListConversations' page token: where the last page ended, for whom, signed with a key of this
// server process. The caller cannot read or make one it was not given (a forged or altered token,
// or one given to another tenant, is invalid_arguments); a token from before a restart is refused
// the same way, and the caller starts again from the first page.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { ConversationCursor } from "../conversations/conversation-store.js";
import { EnclaveError } from "../errors.js";
import { LIMITS } from "../limits.js";

const KEY = randomBytes(32);
const MAC_BYTES = 16;
/** Longer than any token this server makes (a key of two 64-character names, a time, a tenant). */
const TOKEN_MAX_CHARS = 1024;

interface TokenBody {
  /** The tenant the token was given to. */
  t: string;
  c: number;
  i: string;
}

function mac(body: Buffer): Buffer {
  return createHmac("sha256", KEY).update(body).digest().subarray(0, MAC_BYTES);
}

export function pageToken(caller: string, after: ConversationCursor): string {
  const body = Buffer.from(JSON.stringify({ t: caller, c: after.createdAtMs, i: after.id } satisfies TokenBody));
  return Buffer.concat([mac(body), body]).toString("base64url");
}

function badToken(): EnclaveError {
  return new EnclaveError(
    "invalid_arguments",
    "page_token is not one this server gave you: send a previous reply's next_page_token unchanged, or none for the first page",
  );
}

/** The cursor a token given to `caller` stands for; undefined for none (the first page). */
export function cursorOf(caller: string, token: string): ConversationCursor | undefined {
  if (!token) return undefined;
  if (token.length > TOKEN_MAX_CHARS || !/^[A-Za-z0-9_-]+$/.test(token)) throw badToken();
  const raw = Buffer.from(token, "base64url");
  if (raw.length <= MAC_BYTES) throw badToken();
  const body = raw.subarray(MAC_BYTES);
  if (!timingSafeEqual(raw.subarray(0, MAC_BYTES), mac(body))) throw badToken();
  // Signed by this process, so well formed; the tenant must be the caller's.
  const b = JSON.parse(body.toString("utf8")) as TokenBody;
  if (b.t !== caller || typeof b.c !== "number" || typeof b.i !== "string") throw badToken();
  return { createdAtMs: b.c, id: b.i };
}

/** A request's page_size, checked: 0 is the default page. */
export function pageSizeOf(requested: number): number {
  if (requested === 0) return LIMITS.listConversationsDefaultPage;
  if (!Number.isSafeInteger(requested) || requested < 0 || requested > LIMITS.listConversationsMaxPage) {
    throw new EnclaveError(
      "invalid_arguments",
      `page_size ${requested} is not valid: 1–${LIMITS.listConversationsMaxPage}, or 0 for the default (${LIMITS.listConversationsDefaultPage})`,
    );
  }
  return requested;
}
