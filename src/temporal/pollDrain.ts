/**
 * The activity slots of a worker on a rate-limited task queue (the supplier queues), with a way to
 * stop polling before the worker shuts down. The SDK reserves a slot for each poll it opens and
 * closes the open ones at shutdown; on a rate-limited queue the server sometimes hands a task to a
 * poll as it closes, and the task is dropped (SDK 1.24, server 1.32: 1 to 9 tasks in 30 shutdowns
 * of a busy queue, none on a queue without a rate limit). Such a task comes back only by its
 * heartbeat timeout, and a supplier call that may have acted is then looked up for as long as the
 * supplier's view may lag (2 minutes by default) before it is sent again.
 *
 * `stopPolling` reserves no more slots, so no poll opens, and waits until each open poll has had
 * its answer: a task, which the worker then runs as usual, or an empty one. While tasks keep coming
 * that takes a second or two. An idle queue's polls would stay open until the server's long poll
 * ends, and none of them can lose a task that does not come: the wait ends once no task came for
 * three of the worker's recent gaps between tasks (at once if none came lately), and at the latest
 * after a bound.
 */
import type {
  ActivitySlotInfo,
  CustomSlotSupplier,
  SlotPermit,
  WorkerTuner,
} from '@temporalio/worker';

/** How long a stopping worker waits for its open supplier polls to be answered. */
export const POLL_DRAIN_MS = 5_000;

/** The recent past whose tasks tell how busy the queue is. */
const RECENT_MS = 10_000;
/** Answers awaited: the wait ends when none came for this many recent gaps between tasks. */
const QUIET_GAPS = 3;
const MIN_QUIET_MS = 500;

/** The SDK's default when a worker is given no activity slot count. */
const SDK_DEFAULT_ACTIVITY_SLOTS = 100;

interface Permit extends SlotPermit {
  readonly id: number;
}

export class DrainingActivitySlots implements CustomSlotSupplier<ActivitySlotInfo> {
  readonly type = 'custom';
  /** Slots reserved for a poll that has had no task yet: the polls open now. */
  private openPolls = 0;
  private readonly running = new Set<number>();
  private stopped = false;
  private lastId = 0;
  private readonly onChange = new Set<() => void>();
  /** When tasks came, oldest first, within RECENT_MS. */
  private readonly arrivals: number[] = [];
  private readonly since = Date.now();

  constructor(private readonly maxSlots = SDK_DEFAULT_ACTIVITY_SLOTS) {}

  async reserveSlot(_ctx: unknown, abort: AbortSignal): Promise<SlotPermit> {
    while (!this.free()) await this.nextChange(abort);
    return this.issue();
  }

  tryReserveSlot(): SlotPermit | null {
    return this.free() ? this.issue() : null;
  }

  markSlotUsed(ctx: { permit: SlotPermit }): void {
    this.openPolls--;
    this.running.add((ctx.permit as Permit).id);
    this.arrivals.push(Date.now());
    this.forgetOld();
    this.changed();
  }

  releaseSlot(ctx: { permit: SlotPermit }): void {
    if (!this.running.delete((ctx.permit as Permit).id)) this.openPolls--;
    this.changed();
  }

  /**
   * Opens no more polls; resolves true once none is open, or false when the queue went quiet or
   * `boundMs` passed with some still open.
   */
  async stopPolling(boundMs = POLL_DRAIN_MS): Promise<boolean> {
    this.stopped = true;
    const stoppedAt = Date.now();
    const quietMs = this.quietMs(boundMs);
    while (this.openPolls > 0 && quietMs !== undefined) {
      const lastTask = Math.max(stoppedAt, this.arrivals.at(-1) ?? 0);
      const until = Math.min(stoppedAt + boundMs, lastTask + quietMs);
      if (until <= Date.now()) return false;
      const timeout = AbortSignal.timeout(Math.ceil(until - Date.now()));
      await this.nextChange(timeout).catch((err: unknown) => {
        if (err !== timeout.reason) throw err;
      });
    }
    return this.openPolls === 0;
  }

  /** How long without a task means a quiet queue: undefined when none came lately. */
  private quietMs(boundMs: number): number | undefined {
    this.forgetOld();
    if (this.arrivals.length === 0) return undefined;
    const span = Math.min(RECENT_MS, Date.now() - this.since);
    return Math.min(boundMs, Math.max(MIN_QUIET_MS, (QUIET_GAPS * span) / this.arrivals.length));
  }

  private forgetOld(): void {
    const from = Date.now() - RECENT_MS;
    while (this.arrivals.length > 0 && this.arrivals[0]! < from) this.arrivals.shift();
  }

  /** The polls open now. */
  get polling(): number {
    return this.openPolls;
  }

  private free(): boolean {
    return !this.stopped && this.openPolls + this.running.size < this.maxSlots;
  }

  private issue(): Permit {
    this.openPolls++;
    return { id: ++this.lastId };
  }

  private changed(): void {
    for (const wake of [...this.onChange]) wake();
  }

  private nextChange(abort: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (): void => {
        this.onChange.delete(done);
        abort.removeEventListener('abort', aborted);
        resolve();
      };
      // The SDK takes a reservation rejected with its signal's reason as cancelled, not failed.
      const aborted = (): void => {
        this.onChange.delete(done);
        reject(abort.reason as Error);
      };
      if (abort.aborted) {
        aborted();
        return;
      }
      this.onChange.add(done);
      abort.addEventListener('abort', aborted, { once: true });
    });
  }
}

/** A supplier-queue worker's tuner: its activity slots can stop polling; it runs no workflows. */
export function drainingTuner(slots: DrainingActivitySlots): WorkerTuner {
  const unused = { type: 'fixed-size', numSlots: 1 } as const;
  return {
    activityTaskSlotSupplier: slots,
    workflowTaskSlotSupplier: unused,
    localActivityTaskSlotSupplier: unused,
    nexusTaskSlotSupplier: unused,
  };
}
