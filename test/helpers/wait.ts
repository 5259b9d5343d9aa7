// Small waiting helpers the tests share: every wait is bounded.

/** Polls `what` every 20 ms until it returns a value (not undefined or false); rejects after timeoutMs naming what it waited for. */
export function until<T>(what: () => T | undefined | false, label: string, timeoutMs = 30_000): Promise<T> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const tick = (): void => {
      const v = what();
      if (v !== undefined && v !== false) return resolve(v);
      if (Date.now() - started > timeoutMs) return reject(new Error(`timed out waiting for ${label}`));
      setTimeout(tick, 20);
    };
    tick();
  });
}

/** Whether a process exists (signal 0). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Like `until` for an asynchronous check: awaits `what` every 100 ms until it returns a value; rejects after timeoutMs. */
export async function eventually<T>(what: () => Promise<T | undefined | false>, label: string, timeoutMs = 30_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = await what();
    if (v !== undefined && v !== false) return v;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
