/**
 * In-process spacing of one rate class of one supplier account: slots exactly `1000 / rate` ms
 * apart, handed out by priority (lower key first), then in call order. The rate may change between slots
 * (adaptiveRate.ts). A caller that gives up (its signal aborts) leaves the line at once; one whose
 * slot is further away than it may wait is refused with the wait (`PaceTooLong`) instead of waiting.
 *
 * The account's budget across processes is the Temporal task queue's (temporal/taskQueues.ts);
 * this keeps one process's calls (CLI, tests, tasks the server handed out close together) apart.
 * With a `PacerGrid` (a fleet of several processes, `SUPPLIER_FLEET_SHARE`), the process sends
 * only in its own slots of the account's wall-clock grid, so no two processes' calls come closer
 * than one slot, whatever the server hands out at once (docs/accounts.md, "Why it holds across
 * processes").
 */

export interface TakeOptions {
  /** Leaves the line when aborted: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Lower goes first (Temporal's priority keys: 1 … 5); default 3, the server's default. */
  priority?: number;
  /** Refuse (`PaceTooLong`) rather than wait longer than this for the slot. Default: no bound. */
  maxWaitMs?: number;
  /**
   * With a grid: only a slot k of the fleet's grid with k a multiple of this (a class of calls
   * with a limit of its own, kept apart across the fleet). Default 1: any own slot.
   */
  slotEvery?: number;
}

/** The slot is further away than the caller may wait: it was not taken. */
export class PaceTooLong extends Error {
  constructor(readonly waitMs: number) {
    super(`the next free slot of the account is ${Math.ceil(waitMs / 1000)} s away`);
    this.name = 'PaceTooLong';
  }
}

const DEFAULT_PRIORITY = 3;

/** This process's part of a fleet's slots: slot k of the account is the process `k mod of`'s. */
export interface FleetShare {
  /** 0 … of − 1 */
  index: number;
  /** The processes of the fleet that call the supplier. */
  of: number;
}

export interface PacerGrid extends FleetShare {
  /** The fleet's slots of the account, this far apart, from the epoch (every process's clock). */
  periodMs: number;
  /** The slots' offset from the epoch's multiples of `periodMs` (0 … periodMs); default 0. */
  phaseMs?: number;
}

/**
 * A timer that fires this late still gets its slot on the grid (the rate holds over time, no
 * drift); a longer stall of the event loop is not made up with a burst.
 */
export const MAX_CATCH_UP_MS = 20;

interface Waiter {
  priority: number;
  every: number;
  /** The latest time its slot may come, or Infinity. */
  latestAt: number;
  /** Called with the time of its slot. */
  resolve: (slot: number) => void;
  reject: (err: Error) => void;
  leave: () => void;
}

export class Pacer {
  /** The earliest time of the next slot. */
  private next = 0;
  private readonly line: Waiter[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  /** `perSecond` (this process's rate, of all the fleet's slots) is read at every slot. */
  constructor(
    private readonly perSecond: () => number,
    private readonly grid?: PacerGrid,
  ) {}

  /** Resolves when the caller may send, with the time of its slot (when it was meant to go). */
  take(options: TakeOptions = {}): Promise<number> {
    const { signal } = options;
    if (signal?.aborted === true) return Promise.reject(reasonOf(signal));
    const now = Date.now();
    const priority = options.priority ?? DEFAULT_PRIORITY;
    const ahead = this.line.filter((w) => w.priority <= priority).length;
    const every = this.grid === undefined ? 1 : (options.slotEvery ?? 1);
    const due = this.dueAt(now, every);
    const wait = Math.max(0, due - now) + ahead * this.intervalMs();
    if (wait > (options.maxWaitMs ?? Infinity)) return Promise.reject(new PaceTooLong(wait));
    if (this.line.length === 0 && due <= now) {
      const slot = this.grid === undefined ? now : due;
      this.next = slot + this.intervalMs();
      return Promise.resolve(slot);
    }
    return new Promise<number>((resolve, reject) => {
      const onAbort = (): void => {
        this.remove(waiter);
        reject(reasonOf(signal!));
      };
      const waiter: Waiter = {
        priority,
        every,
        latestAt: now + (options.maxWaitMs ?? Infinity),
        resolve,
        reject,
        leave: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const at = this.line.findIndex((w) => w.priority > priority);
      this.line.splice(at === -1 ? this.line.length : at, 0, waiter);
      this.refuseOverdue(now);
      this.arm();
    });
  }

  /** Callers in line now. */
  get waiting(): number {
    return this.line.length;
  }

  /** Between two of this process's calls: with a grid, at least to its next own slot. */
  private intervalMs(): number {
    const g = this.grid;
    if (g === undefined) return 1000 / this.perSecond();
    return g.of * Math.max(g.periodMs, 1000 / this.perSecond());
  }

  /**
   * When the next caller (taking slots `every`) may go. With a grid: this process's first own
   * slot from `next` on.
   */
  private dueAt(now: number, every = 1): number {
    if (this.grid === undefined) return this.next;
    // A slot that began a moment ago (a late timer) is still taken; a longer stall skips it.
    return this.ownSlotFrom(Math.max(this.next, now - MAX_CATCH_UP_MS), every);
  }

  /** With a grid: the first slot k at or after `t` that is this process's and a multiple of `every`. */
  private ownSlotFrom(t: number, every: number): number {
    const g = this.grid!;
    const phase = g.phaseMs ?? 0;
    let k = Math.ceil((t - phase) / g.periodMs - 1e-9);
    while (k % g.of !== g.index || k % every !== 0) k++;
    return k * g.periodMs + phase;
  }

  /** Refuses the callers pushed past what they may wait by someone of higher priority. */
  private refuseOverdue(now: number): void {
    const interval = this.intervalMs();
    let slot = Math.max(this.dueAt(now), now);
    for (const w of [...this.line]) {
      if (w.every > 1) slot = this.ownSlotFrom(slot, w.every);
      if (slot > w.latestAt) {
        this.remove(w);
        w.reject(new PaceTooLong(slot - now));
        continue;
      }
      slot += interval;
    }
  }

  private remove(w: Waiter): void {
    const i = this.line.indexOf(w);
    if (i !== -1) this.line.splice(i, 1);
    w.leave();
  }

  private arm(): void {
    if (this.timer !== undefined || this.line.length === 0) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.release();
      },
      Math.max(0, Math.min(...this.line.map((w) => this.dueAt(Date.now(), w.every))) - Date.now()),
    );
  }

  private release(): void {
    const now = Date.now();
    // The first in line whose slot has come (with a grid, one that waits for a multiple of its
    // `every` lets those behind it take the slots before).
    const first = this.line.find((w) => this.dueAt(now, w.every) <= now);
    if (first !== undefined) {
      const due = this.dueAt(now, first.every);
      this.remove(first);
      // Its slot was `next`: a timer a little late keeps the grid.
      const slot = this.grid === undefined ? Math.max(this.next, now - MAX_CATCH_UP_MS) : due;
      this.next = slot + this.intervalMs();
      first.resolve(slot);
    }
    // The rate may have dropped since the others lined up; with a grid, a timer later than the
    // catch-up skips its slot, and the callers behind it may now wait past their bound.
    this.refuseOverdue(now);
    this.arm();
  }
}

/** Why the caller gave up: an activity's cancellation, or the abort's own reason. */
function reasonOf(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(`aborted: ${String(reason)}`);
}
