/**
 * In-process spacing of one rate class of one supplier account: slots exactly `1000 / rate` ms
 * apart, handed out by priority (lower key first), then in call order. The rate may change between slots
 * (adaptiveRate.ts). A caller that gives up (its signal aborts) leaves the line at once; one whose
 * slot is further away than it may wait is refused with the wait (`PaceTooLong`) instead of waiting.
 *
 * The account's budget across processes is the Temporal task queue's (temporal/taskQueues.ts);
 * this keeps one process's calls (CLI, tests, tasks the server handed out close together) apart.
 * With a `PacerGrid` (a fleet of several processes: fleet.ts), the process sends only in its own
 * slots of the account's wall-clock grid (fleetGrid.ts), so no second holds more than the tier,
 * whatever the server hands out at once (docs/accounts.md, "Why it holds across processes"). The
 * fleet may change from one slot to the next: each slot's owner is asked of the fleet's view.
 */
import type { FleetView } from './fleet.js';
import { gridPace, ownerOf, OWN_SECOND_MS, type GridPace } from './fleetGrid.js';

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
  /** The account's tier: the fleet's calls a second, on the grid of fleetGrid.ts. */
  tier: number;
  /** Where the grid starts within its period, 0 … 1 (the same fraction at every pace). */
  phase?: number;
  /** Whose each slot is: this process's seat at the slot's time. */
  fleet: FleetView;
}

/** A slot of the fleet's grid that this process takes. */
export interface GridSlot {
  /** Its index on the grid of its pace. */
  k: number;
  /** When it is (epoch ms). */
  at: number;
  /** The call leaves by then (its pace's catch-up), or not at all. */
  by: number;
  pace: GridPace;
}

/**
 * Off any grid, a timer this late still keeps the pace (the rate holds over time, no drift); a
 * longer stall of the event loop is not made up with a burst. On a grid, the pace's catch-up.
 */
const OFF_GRID_CATCH_UP_MS = 20;
const MAX_CATCH_UP_MS = 80;

/**
 * How far ahead a grid is searched for an own slot: a process with none in sight (it is joining,
 * leaving, or unsure of the fleet) waits and looks again.
 */
const HORIZON_MS = 10_000;
/** With a grid, a waiting line looks again at least this often: the fleet may have changed. */
const RECHECK_MS = 1_000;

/**
 * When the next call may go: at a slot of the fleet's grid, off any grid (`alone`), or nothing
 * in sight before `at` (`none`: look again then).
 */
interface Due {
  at: number;
  slot: GridSlot | 'alone' | 'none';
}

interface Waiter {
  priority: number;
  every: SlotEvery;
  /** The latest time its slot may come, or Infinity. */
  latestAt: number;
  /** Called with its slot on the grid (undefined: off any grid). */
  resolve: (slot: GridSlot | undefined) => void;
  reject: (err: Error) => void;
  leave: () => void;
}

export class Pacer {
  /** The earliest time of the next slot. */
  private next = 0;
  private readonly line: Waiter[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** The paces the grid may have at its tier (own seconds need a tier of 2 or more). */
  private readonly paces: readonly GridPace[];
  /** With own seconds: this process's last call in each of the grid's residues (k mod tier). */
  private readonly left = new Map<number, { k: number; at: number }>();

  /** `perSecond` (this process's rate, of all the fleet's slots) is read at every slot. */
  constructor(
    private readonly perSecond: () => number,
    private readonly grid?: PacerGrid,
  ) {
    const tier = grid?.tier ?? 1;
    this.paces = [...(tier >= 2 ? [gridPace(2, tier)] : []), gridPace(tier + 1, tier)];
  }

  /**
   * Resolves when the caller may send: with its slot when on a fleet's grid, with undefined off
   * any grid.
   */
  take(options: TakeOptions = {}): Promise<GridSlot | undefined> {
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
    return new Promise<GridSlot | undefined>((resolve, reject) => {
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

  /** The call given `slot` left at `at`: with own seconds, the slot `tier` later keeps 1 s off. */
  sent(slot: GridSlot, at: number): void {
    if (slot.pace.kind === 'own') this.left.set(mod(slot.k, this.grid!.tier), { k: slot.k, at });
  }

  /**
   * Takes the slot `due` (come by now): what the caller is resolved with. Off the grid the slot is
   * `offGrid`: now for a caller served at once, and for one a timer released a little late, the
   * time it was meant to go (the pace holds).
   */
  private give(due: Due, offGrid: number): GridSlot | undefined {
    const slot = typeof due.slot === 'object' ? due.slot : undefined;
    const at = slot?.at ?? offGrid;
    this.next = at + this.intervalMs(at);
    return slot;
  }

  /** Callers in line now. */
  get waiting(): number {
    return this.line.length;
  }

  /**
   * Between two of this process's calls: with a grid, at least to the grid's next slot (which
   * may be another process's), and the process's share of a rate lowered by refusals.
   */
  private intervalMs(at: number): number {
    const g = this.grid;
    const seat = g?.fleet.seatAt(at, { tier: g.tier });
    const rate = this.perSecond();
    if (g === undefined || seat?.kind !== 'seat') return 1000 / rate;
    const periodMs = gridPace(seat.of, g.tier).periodMs;
    return rate < g.tier ? seat.of * Math.max(periodMs, 1000 / rate) : periodMs;
  }

  /**
   * When the next caller (taking slots `every`) may go. With a grid: this process's first own
   * slot from `next` on, or the moment it is alone.
   */
  private dueAt(now: number, every: SlotEvery): Due {
    if (this.grid === undefined) return { at: this.next, slot: 'alone' };
    // A slot that began a moment ago (a late timer) is still taken; a longer stall skips it.
    return this.ownSlotFrom(Math.max(this.next, now - MAX_CATCH_UP_MS), every);
  }

  /**
   * With a grid: the first slot k at or after `t` that is this process's, a multiple of
   * `every(of)`, and not past its catch-up; off the grid from the first moment the process is
   * alone. The grids of both paces are walked together: the fleet's size at a slot's time says
   * which one holds. None within the horizon: `none`, at the horizon.
   */
  private ownSlotFrom(t: number, every: SlotEvery): Due {
    const g = this.grid!;
    // A future slot is this process's as far as it can tell: its roster is good for a couple of
    // seconds at a time, and a line longer than that is no reason to refuse the callers at its
    // end (they came back 10 s later, leaving the fleet's slots unused). Whether a slot that has
    // come is its own is asked of the roster it holds then.
    const now = Date.now();
    const seatAt = (at: number) => g.fleet.seatAt(at, { expected: at > now, tier: g.tier });
    if (seatAt(t).kind === 'alone') return { at: t, slot: 'alone' };
    const phase = g.phase ?? 0;
    const ks = this.paces.map((p) => Math.ceil(t / p.periodMs - phase - 1e-9));
    const timeOf = (i: number) => (ks[i]! + phase) * this.paces[i]!.periodMs;
    for (;;) {
      const i = ks.length > 1 && timeOf(1) < timeOf(0) ? 1 : 0;
      const pace = this.paces[i]!;
      const k = ks[i]!;
      const at = timeOf(i);
      ks[i] = k + 1;
      if (at > t + HORIZON_MS) return { at, slot: 'none' };
      const seat = seatAt(at);
      if (seat.kind === 'alone') return { at, slot: 'alone' };
      if (seat.kind !== 'seat' || gridPace(seat.of, g.tier).kind !== pace.kind) continue;
      if (ownerOf(k, seat.of, g.tier) !== seat.index || k % every(seat.of) !== 0) continue;
      const by = at + pace.catchUpMs;
      const leaves = pace.kind === 'own' ? this.ownSecondFrom(k, at) : at;
      if (by < now || leaves === undefined || leaves > by) continue;
      return { at: leaves, slot: { k, at, by, pace } };
    }
  }

  /**
   * With own seconds, when the call of slot k may leave: no other process may have sent in the
   * slot `tier` before it, and this process's own call there (if any) left more than 1 s before.
   * Undefined: not in this slot.
   */
  private ownSecondFrom(k: number, at: number): number | undefined {
    const g = this.grid!;
    const before = at - g.tier * gridPace(2, g.tier).periodMs;
    if (g.fleet.senderAt(before, k - g.tier, g.tier) === 'other') return undefined;
    const last = this.left.get(mod(k, g.tier));
    return last?.k === k - g.tier ? Math.max(at, last.at + OWN_SECOND_MS) : at;
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
      const offGrid = this.next >= now - OFF_GRID_CATCH_UP_MS ? this.next : now;
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

function mod(k: number, n: number): number {
  return ((k % n) + n) % n;
}
