// Name lookups for the egress proxy, bounded and fair between tenants. The system resolver
// (getaddrinfo) runs on Node's few shared worker threads, the ones file work uses too, and a lookup
// cannot be cancelled: a tenant whose names resolve slowly would otherwise hold every thread, slowing
// the control plane and every other tenant. So lookups in flight are bounded below the thread count
// (the rest of the threads stay free for file work), one per tenant at a time, and waiting tenants
// are served in turn; a wait is bounded in time and in length, and past either the request is refused.

export interface LookupGateLimits {
  /** Lookups in flight at once, every tenant's together (keep it below UV_THREADPOOL_SIZE, 4 by default). */
  inFlight: number;
  /** Lookups one tenant may have waiting; past it its next one is refused at once. */
  queuedPerTenant: number;
  /** How long a lookup may wait for its turn. */
  waitMs: number;
}

interface Waiter {
  start(): void;
  timer: NodeJS.Timeout;
}

export class LookupGate {
  private running = 0;
  private readonly busy = new Set<string>();
  /** Each tenant's waiting lookups, tenants in the order they are served next. */
  private readonly queues = new Map<string, Waiter[]>();

  constructor(private readonly limits: LookupGateLimits) {}

  /** Runs `lookup` in the tenant's turn; LookupBusy when its turn does not come. */
  async run<T>(tenant: string, lookup: () => Promise<T>): Promise<T> {
    await this.turn(tenant);
    try {
      return await lookup();
    } finally {
      this.running--;
      this.busy.delete(tenant);
      this.next();
    }
  }

  /** Lookups in flight and waiting now (for tests and the status). */
  counts(): { running: number; waiting: number } {
    let waiting = 0;
    for (const q of this.queues.values()) waiting += q.length;
    return { running: this.running, waiting };
  }

  private turn(tenant: string): Promise<void> {
    if (this.canStart(tenant) && !this.queues.has(tenant)) {
      this.take(tenant);
      return Promise.resolve();
    }
    const queue = this.queues.get(tenant) ?? [];
    if (queue.length >= this.limits.queuedPerTenant) {
      return Promise.reject(busy(`${queue.length} lookups of tenant \`${tenant}\` already wait`));
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          clearTimeout(waiter.timer);
          this.take(tenant);
          resolve();
        },
        timer: setTimeout(() => {
          this.drop(tenant, waiter);
          reject(busy(`no turn to resolve within ${this.limits.waitMs} ms`));
        }, this.limits.waitMs),
      };
      queue.push(waiter);
      this.queues.set(tenant, queue);
    });
  }

  private canStart(tenant: string): boolean {
    return this.running < this.limits.inFlight && !this.busy.has(tenant);
  }

  private take(tenant: string): void {
    this.running++;
    this.busy.add(tenant);
  }

  private drop(tenant: string, waiter: Waiter): void {
    const queue = this.queues.get(tenant);
    if (!queue) return;
    const i = queue.indexOf(waiter);
    if (i >= 0) queue.splice(i, 1);
    if (!queue.length) this.queues.delete(tenant);
  }

  /** Starts the next waiting lookups, a tenant at a time in turn (a tenant served goes to the back). */
  private next(): void {
    for (const [tenant, queue] of [...this.queues]) {
      if (this.running >= this.limits.inFlight) return;
      if (this.busy.has(tenant)) continue;
      const waiter = queue.shift();
      this.queues.delete(tenant);
      if (queue.length) this.queues.set(tenant, queue);
      waiter?.start();
    }
  }
}

/** A lookup refused its turn: too many of the tenant's wait, or the wait ran out. */
export class LookupBusy extends Error {}

function busy(why: string): LookupBusy {
  return new LookupBusy(`the egress proxy's resolver is busy: ${why}; try again`);
}
