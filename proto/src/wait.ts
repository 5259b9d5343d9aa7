// Waits with a bound: how long to give a process to exit, a server to answer, a start to finish.
// One helper for the agent and the control plane (the protocol package serves both), so no wait leaves a
// timer behind that keeps a process alive or fires late.

/** Resolves after `ms`; the timer does not keep the process alive. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)).unref());
}

/** `work`'s value, or `late` once `ms` have passed, whichever comes first. A rejection of `work`
 * before then rejects; the timer is cleared as soon as either side settles. */
export function within<T, L>(work: Promise<T>, ms: number, late: L): Promise<T | L> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<L>((resolve) => {
    timer = setTimeout(() => resolve(late), Math.max(0, ms));
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const LATE = Symbol("late");

/** `work`'s value, or a rejection with `late()` once `ms` have passed, whichever comes first. */
export async function orTimeout<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  const r = await within(work, ms, LATE);
  if (r === LATE) throw late();
  return r;
}
