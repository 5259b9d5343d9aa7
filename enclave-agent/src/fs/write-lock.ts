// One queue per workspace for every change to its files made through the agent (write, edit, patch,
// lsp rename, structural apply: all go through workspace-writer.ts, its only user). Each takes its
// turn whole — including the read it decides on — so a check-then-write (resolve's hash check,
// edit's search) can never interleave with another write and silently undo it. Reads never wait.
const queues = new Map<string, Promise<unknown>>();

export function withWriteLock<T>(workspaceRoot: string, change: () => Promise<T>): Promise<T> {
  const before = queues.get(workspaceRoot) ?? Promise.resolve();
  const mine = before.then(change, change);
  const tail = mine.catch(() => undefined);
  queues.set(workspaceRoot, tail);
  // Forget the queue once it drains, so roots do not accumulate.
  void tail.then(() => {
    if (queues.get(workspaceRoot) === tail) queues.delete(workspaceRoot);
  });
  return mine;
}
