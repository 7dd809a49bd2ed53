/**
 * A worker's task slots, with a way to stop polling before the worker shuts down. The SDK reserves
 * a slot for each poll it opens and closes the open ones at shutdown, and the server sometimes
 * hands a task to a poll as it closes: the task is dropped (SDK 1.24, server 1.32).
 * - Supplier queues (activity slots): 1 to 9 tasks in 30 shutdowns of a busy rate-limited queue. A
 *   dropped task comes back only by its heartbeat timeout, and a supplier call that may have acted
 *   is then looked up for as long as the supplier's view may lag (2 minutes by default).
 * - The orders queue (workflow slots): 62 workflow tasks in 25 shutdowns of a busy workflow worker,
 *   each taken from the worker's sticky queue just before the stop and back only after its 10 s
 *   start-to-close timeout. With the drain: 1 (taken from the orders queue). Its price: tasks that
 *   reach the sticky queue during the drain move to the orders queue after the sticky wait (3 s):
 *   244 such tasks against 34 without the drain, in 7,000 tasks.
 *
 * `stopPolling` reserves no more slots, so no poll opens, and waits until each open poll has had
 * its answer (as far as `DrainScope` says): a task, which the worker then runs as usual, or an
 * empty one. While tasks keep coming that takes a second or two. An idle queue's polls would stay
 * open until the server's long poll ends, and none of them can lose a task that does not come: the
 * wait ends once no task came for three of the worker's recent gaps between tasks (at once if none
 * came lately), and at the latest after a bound.
 */
import type {
  ActivitySlotInfo,
  CustomSlotSupplier,
  SlotInfo,
  SlotPermit,
  SlotReserveContext,
  WorkerTuner,
  WorkflowSlotInfo,
} from '@temporalio/worker';

/** How long a stopping worker waits for its open polls to be answered. */
export const POLL_DRAIN_MS = 5_000;

/** The recent past whose tasks tell how busy the queue is. */
const RECENT_MS = 10_000;
/** Answers awaited: the wait ends when none came for this many recent gaps between tasks. */
const QUIET_GAPS = 3;
const MIN_QUIET_MS = 500;

/** The SDK's defaults when a worker is given no slot counts. */
const SDK_DEFAULT_SLOTS = { workflow: 40, activity: 100, localActivity: 100, nexus: 100 } as const;

/**
 * What a stop waits for. A supplier queue's worker: every open poll. The orders worker: its sticky
 * queue's open polls and the workflow tasks in hand, which take milliseconds. Every workflow task
 * lost in the stops measured was one of these; the orders queue's own polls seldom get a task, and
 * waiting for them would hold back the tasks of the workflows this worker caches, which wait on its
 * sticky queue while it polls no more.
 */
type DrainScope = 'openPolls' | 'stickyPollsAndTasks';

interface Permit extends SlotPermit {
  readonly id: number;
  readonly sticky: boolean;
}

export class DrainingSlots<SI extends SlotInfo> implements CustomSlotSupplier<SI> {
  readonly type = 'custom';
  /** Slots reserved for a poll that has had no task yet: the polls open now. */
  private openPolls = 0;
  /** Of those, the polls of the worker's sticky queue. */
  private openSticky = 0;
  private readonly running = new Set<number>();
  private stopped = false;
  private lastId = 0;
  private tasks = 0;
  private readonly onChange = new Set<() => void>();
  /** When tasks came, oldest first, within RECENT_MS. */
  private readonly arrivals: number[] = [];
  private readonly since = Date.now();

  constructor(
    private readonly maxSlots: number,
    private readonly awaited: DrainScope,
  ) {}

  async reserveSlot(ctx: SlotReserveContext, abort: AbortSignal): Promise<SlotPermit> {
    while (!this.free()) await this.nextChange(abort);
    return this.issue(ctx);
  }

  tryReserveSlot(ctx: SlotReserveContext): SlotPermit | null {
    return this.free() ? this.issue(ctx) : null;
  }

  markSlotUsed(ctx: { permit: SlotPermit }): void {
    this.pollAnswered(ctx.permit as Permit);
    this.tasks++;
    this.running.add((ctx.permit as Permit).id);
    this.arrivals.push(Date.now());
    this.forgetOld();
    this.changed();
  }

  releaseSlot(ctx: { permit: SlotPermit }): void {
    const permit = ctx.permit as Permit;
    if (!this.running.delete(permit.id)) this.pollAnswered(permit);
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
    while (this.unanswered() > 0 && quietMs !== undefined) {
      const lastTask = Math.max(stoppedAt, this.arrivals.at(-1) ?? 0);
      const until = Math.min(stoppedAt + boundMs, lastTask + quietMs);
      if (until <= Date.now()) return false;
      const timeout = AbortSignal.timeout(Math.ceil(until - Date.now()));
      await this.nextChange(timeout).catch((err: unknown) => {
        if (err !== timeout.reason) throw err;
      });
    }
    return this.unanswered() === 0;
  }

  private unanswered(): number {
    return this.awaited === 'openPolls' ? this.openPolls : this.openSticky + this.running.size;
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

  /** The tasks the polls brought so far. */
  get taken(): number {
    return this.tasks;
  }

  private free(): boolean {
    return !this.stopped && this.openPolls + this.running.size < this.maxSlots;
  }

  private issue(ctx: SlotReserveContext): Permit {
    this.openPolls++;
    if (ctx.isSticky) this.openSticky++;
    return { id: ++this.lastId, sticky: ctx.isSticky };
  }

  private pollAnswered(permit: Permit): void {
    this.openPolls--;
    if (permit.sticky) this.openSticky--;
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

const fixed = (numSlots: number) => ({ type: 'fixed-size', numSlots }) as const;

/** A supplier queue's activity slots, `max` of them (the SDK's default: 100). */
export const activitySlots = (max: number = SDK_DEFAULT_SLOTS.activity) =>
  new DrainingSlots<ActivitySlotInfo>(max, 'openPolls');

/** The orders queue's workflow task slots, `max` of them (the SDK's default: 40). */
export const workflowSlots = (max: number = SDK_DEFAULT_SLOTS.workflow) =>
  new DrainingSlots<WorkflowSlotInfo>(max, 'stickyPollsAndTasks');

/** A supplier queue worker's tuner: its activity slots can stop polling; it runs no workflows. */
export function supplierQueueTuner(slots: DrainingSlots<ActivitySlotInfo>): WorkerTuner {
  return {
    activityTaskSlotSupplier: slots,
    workflowTaskSlotSupplier: fixed(1),
    localActivityTaskSlotSupplier: fixed(1),
    nexusTaskSlotSupplier: fixed(1),
  };
}

/** The orders worker's tuner: its workflow task slots can stop polling; the others as the SDK's. */
export function ordersQueueTuner(slots: DrainingSlots<WorkflowSlotInfo>): WorkerTuner {
  return {
    workflowTaskSlotSupplier: slots,
    activityTaskSlotSupplier: fixed(SDK_DEFAULT_SLOTS.activity),
    localActivityTaskSlotSupplier: fixed(SDK_DEFAULT_SLOTS.localActivity),
    nexusTaskSlotSupplier: fixed(SDK_DEFAULT_SLOTS.nexus),
  };
}
