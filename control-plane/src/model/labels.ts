// The labels Enclave puts on the containers it starts: whose they are, which conversation's, and
// which warm-pool profile a pre-started one was kept for.

export const LABELS = {
  managed: "org.enclave.managed",
  conversation: "org.enclave.conversation",
  /** Which control plane made it (see ownerId): several may share one engine, each reaps only its own. */
  owner: "org.enclave.owner",
} as const;

/** The label every pool container (and copy-mode pool volume) carries: its profile's key. */
export const POOL_LABEL = "org.enclave.pool";
