/**
 * In-process spacing of one rate class of one supplier account: slots exactly `1000 / rate` ms
 * apart, handed out by priority (lower key first), then in call order. The rate may change between slots
 * (adaptiveRate.ts). A caller that gives up (its signal aborts) leaves the line at once; one whose
 * slot is further away than it may wait is refused with the wait (`PaceTooLong`) instead of waiting.
 *
 * The account's budget across processes is the Temporal task queue's (temporal/taskQueues.ts);
 * this keeps one process's calls (CLI, tests, tasks the server handed out close together) apart.
 * With a `PacerGrid` (a fleet of several processes: fleet.ts), the process sends only in its own
 * slots of the account's wall-clock grid, so no two processes' calls come closer than one slot,
 * whatever the server hands out at once (docs/accounts.md, "Why it holds across processes"). The
 * fleet may change from one slot to the next: each slot's owner is asked of the fleet's view.
 */
import type { FleetView } from './fleet.js';

export interface TakeOptions {
  /** Leaves the line when aborted: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Lower goes first (Temporal's priority keys: 1 … 5); default 3, the server's default. */
  priority?: number;
  /** Refuse (`PaceTooLong`) rather than wait longer than this for the slot. Default: no bound. */
  maxWaitMs?: number;
  /**
   * With a grid of `of` processes: only a slot k of the fleet's grid with k a multiple of
   * `slotEvery(of)` (a class of calls with a limit of its own, kept apart across the fleet).
   * Default: any own slot.
   */
  slotEvery?: SlotEvery;
}

export type SlotEvery = (of: number) => number;
const ANY_SLOT: SlotEvery = () => 1;

/** The slot is further away than the caller may wait: it was not taken. */
export class PaceTooLong extends Error {
  constructor(readonly waitMs: number) {
    super(`the next free slot of the account is ${Math.ceil(waitMs / 1000)} s away`);
    this.name = 'PaceTooLong';
  }
}

const DEFAULT_PRIORITY = 3;

export interface PacerGrid {
  /** The fleet's slots of the account, this far apart, from the epoch (every process's clock). */
  periodMs: number;
  /** The slots' offset from the epoch's multiples of `periodMs` (0 … periodMs); default 0. */
  phaseMs?: number;
  /** Whose each slot is: this process's seat at the slot's time. */
  fleet: FleetView;
}

/**
 * A timer that fires this late still gets its slot on the grid (the rate holds over time, no
 * drift); a longer stall of the event loop is not made up with a burst.
 */
export const MAX_CATCH_UP_MS = 20;

/**
 * How far ahead a grid is searched for an own slot: a process with none in sight (it is joining,
 * leaving, or unsure of the fleet) waits and looks again.
 */
const HORIZON_MS = 10_000;
/** With a grid, a waiting line looks again at least this often: the fleet may have changed. */
const RECHECK_MS = 1_000;

/** When the next call may go; `onGrid`: at a slot of the fleet's grid (else off any grid). */
interface Due {
  at: number;
  onGrid: boolean;
}

interface Waiter {
  priority: number;
  every: SlotEvery;
  /** The latest time its slot may come, or Infinity. */
  latestAt: number;
  /** Called with the time of its slot on the grid (undefined: off any grid). */
  resolve: (slot: number | undefined) => void;
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

  /**
   * Resolves when the caller may send: with the time of its slot when on a fleet's grid (when it
   * was meant to go), with undefined off any grid.
   */
  take(options: TakeOptions = {}): Promise<number | undefined> {
    const { signal } = options;
    if (signal?.aborted === true) return Promise.reject(reasonOf(signal));
    const now = Date.now();
    const priority = options.priority ?? DEFAULT_PRIORITY;
    const ahead = this.line.filter((w) => w.priority <= priority).length;
    const every = options.slotEvery ?? ANY_SLOT;
    const due = this.dueAt(now, every);
    const wait = Math.max(0, due.at - now) + ahead * this.intervalMs(now);
    if (wait > (options.maxWaitMs ?? Infinity)) return Promise.reject(new PaceTooLong(wait));
    if (this.line.length === 0 && due.at <= now) {
      return Promise.resolve(this.give(due, now));
    }
    return new Promise<number | undefined>((resolve, reject) => {
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

  /**
   * Takes the slot `due` (come by now): what the caller is resolved with. Off the grid the slot is
   * `offGrid`: now for a caller served at once, and for one a timer released a little late, the
   * time it was meant to go (the pace holds).
   */
  private give(due: Due, offGrid: number): number | undefined {
    const slot = due.onGrid ? due.at : offGrid;
    this.next = slot + this.intervalMs(slot);
    return due.onGrid ? slot : undefined;
  }

  /** Callers in line now. */
  get waiting(): number {
    return this.line.length;
  }

  /** Between two of this process's calls: with a grid, at least to its next own slot. */
  private intervalMs(at: number): number {
    const seat = this.grid?.fleet.seatAt(at);
    if (seat?.kind !== 'seat') return 1000 / this.perSecond();
    return seat.of * Math.max(this.grid!.periodMs, 1000 / this.perSecond());
  }

  /**
   * When the next caller (taking slots `every`) may go. With a grid: this process's first own
   * slot from `next` on, or the moment it is alone.
   */
  private dueAt(now: number, every: SlotEvery): Due {
    if (this.grid === undefined) return { at: this.next, onGrid: false };
    // A slot that began a moment ago (a late timer) is still taken; a longer stall skips it.
    return this.ownSlotFrom(Math.max(this.next, now - MAX_CATCH_UP_MS), every);
  }

  /**
   * With a grid: the first slot k at or after `t` that is this process's and a multiple of
   * `every(of)`; off the grid from the first moment the process is alone. None within the
   * horizon: the horizon, on the grid (the caller looks again by then).
   */
  private ownSlotFrom(t: number, every: SlotEvery): Due {
    const g = this.grid!;
    // A future slot is this process's as far as it can tell: its roster is good for a couple of
    // seconds at a time, and a line longer than that is no reason to refuse the callers at its
    // end (they came back 10 s later, leaving the fleet's slots unused). Whether a slot that has
    // come is its own is asked of the roster it holds then.
    const now = Date.now();
    const seatAt = (at: number) => g.fleet.seatAt(at, at > now);
    if (seatAt(t).kind === 'alone') return { at: t, onGrid: false };
    const phase = g.phaseMs ?? 0;
    for (let k = Math.ceil((t - phase) / g.periodMs - 1e-9); ; k++) {
      const at = k * g.periodMs + phase;
      if (at > t + HORIZON_MS) return { at, onGrid: true };
      const seat = seatAt(at);
      if (seat.kind === 'alone') return { at, onGrid: false };
      if (seat.kind === 'seat' && k % seat.of === seat.index && k % every(seat.of) === 0) {
        return { at, onGrid: true };
      }
    }
  }

  /** Refuses the callers pushed past what they may wait by someone of higher priority. */
  private refuseOverdue(now: number): void {
    const interval = this.intervalMs(now);
    let slot = Math.max(this.dueAt(now, ANY_SLOT).at, now);
    for (const w of [...this.line]) {
      if (this.grid !== undefined) slot = this.ownSlotFrom(slot, w.every).at;
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
    const now = Date.now();
    const dues = new Map<SlotEvery, number>();
    for (const w of this.line) {
      if (!dues.has(w.every)) dues.set(w.every, this.dueAt(now, w.every).at);
    }
    const wait = Math.max(0, Math.min(...dues.values()) - now);
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.release();
      },
      this.grid === undefined ? wait : Math.min(wait, RECHECK_MS),
    );
  }

  private release(): void {
    const now = Date.now();
    // The first in line whose slot has come (with a grid, one that waits for a multiple of its
    // `every` lets those behind it take the slots before).
    const first = this.line.find((w) => this.dueAt(now, w.every).at <= now);
    if (first !== undefined) {
      const due = this.dueAt(now, first.every);
      this.remove(first);
      // Off the grid, a timer a little late for `next` keeps the pace; a caller released later
      // than that (it waited for a seat) goes now.
      const offGrid = this.next >= now - MAX_CATCH_UP_MS ? this.next : now;
      first.resolve(this.give(due, offGrid));
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
