/**
 * In-process pacing of supplier calls per account and rate class. The first guard is the Temporal
 * task queue's `maxTaskQueueActivitiesPerSecond`, enforced by the server across every worker
 * process; this one keeps a single process (CLI, tests, bursts after a restart) from sending two
 * calls inside one interval.
 */
export class Pacer {
  private next = 0;

  constructor(private readonly intervalMs: number) {}

  /** Resolves when the caller may send; slots are handed out in call order. */
  async take(): Promise<void> {
    const now = Date.now();
    const at = Math.max(now, this.next);
    this.next = at + this.intervalMs;
    if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
  }
}

/**
 * Spacing added to the account's interval: two calls paced exactly at the limit can still arrive
 * inside one supplier window when the first is delayed on its way (a busy event loop, a slow
 * connection), and a refused call costs a whole retry.
 */
const MARGIN_MS = 100;

const pacers = new Map<string, Pacer>();

/** One pacer per key in this process, shared by every client of the same account. */
export function pacerFor(key: string, perSecond: number): Pacer {
  const k = `${key}|${perSecond}`;
  let p = pacers.get(k);
  if (!p) {
    p = new Pacer(Math.ceil(1000 / perSecond) + MARGIN_MS);
    pacers.set(k, p);
  }
  return p;
}
