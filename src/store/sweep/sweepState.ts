/**
 * What a store's order sweep knows (storeOrderSweep.ts): its cursor (the latest
 * `date_modified_gmt` the site listed), the orders taken within the overlap, why it waits, and
 * its last sweep. The workflow's one writer of it; carried through continue-as-new. Sandbox-safe.
 */
import type { LastStoreSweep, StoreSweepStatus, SweepCounts, SweepWait } from '../contract.js';

/** Each sweep asks again from this long before its cursor: a change committed late is not lost. */
export const SWEEP_OVERLAP_MS = 10 * 60_000;
/** The most order keys a sweep carries to skip (the overlap's orders, at most). */
const SEEN_LIMIT = 2_000;

export interface SweepMemory {
  cursor: string;
  seen: string[];
  everyMs: number;
  /** Sweeps this chain of runs concluded: read every page, or waited for the site. */
  sweeps: number;
  waiting?: { reason: SweepWait; since: string; message: string };
  last?: LastStoreSweep;
}

export class SweepState {
  private m: SweepMemory;
  /** The sweep under way: its counts so far. */
  private current?: { counts: SweepCounts; startedAt: string; since: string; latest?: string };

  constructor(
    readonly connection: string,
    memory: SweepMemory,
  ) {
    this.m = { ...memory, seen: [...memory.seen] };
  }

  /** `modified_after` of the next sweep. */
  get since(): string {
    return new Date(Date.parse(this.m.cursor) - SWEEP_OVERLAP_MS).toISOString();
  }

  get cursor(): string {
    return this.m.cursor;
  }

  get seen(): string[] {
    return this.m.seen;
  }

  get everyMs(): number {
    return this.m.everyMs;
  }

  get memory(): SweepMemory {
    return { ...this.m, seen: [...this.m.seen] };
  }

  started(now: Date, counts: SweepCounts): void {
    this.current = { counts, startedAt: now.toISOString(), since: this.since };
  }

  /** A call read pages: its orders counted, its keys kept, the latest change noted. */
  pagesRead(r: { everyMs: number; latest?: string; taken: string[]; counts: SweepCounts }): void {
    this.m.everyMs = r.everyMs;
    const c = this.current;
    if (c === undefined) return;
    for (const [k, v] of Object.entries(r.counts) as [keyof SweepCounts, number][]) {
      c.counts[k] += v;
    }
    if (r.latest !== undefined && (c.latest === undefined || r.latest > c.latest)) {
      c.latest = r.latest;
    }
    this.m.seen.push(...r.taken);
  }

  /**
   * The sweep read every page: the cursor moves to the latest change listed, and the keys older
   * than the next sweep's overlap are let go.
   */
  finished(now: Date): void {
    const c = this.current;
    this.current = undefined;
    this.m.waiting = undefined;
    this.m.sweeps += 1;
    if (c === undefined) return;
    if (c.latest !== undefined && c.latest > this.m.cursor) this.m.cursor = c.latest;
    const since = this.since;
    this.m.seen = [...new Set(this.m.seen)]
      .filter((key) => (key.split('@')[1] ?? '') >= since)
      .slice(-SEEN_LIMIT);
    this.m.last = {
      ...c.counts,
      since: c.since,
      startedAt: c.startedAt,
      endedAt: now.toISOString(),
    };
  }

  /** The site did not list its orders: the sweep waits, named; the cursor stays. */
  waits(now: Date, r: { everyMs: number; reason: SweepWait; message: string }): void {
    this.current = undefined;
    this.m.everyMs = r.everyMs;
    this.m.sweeps += 1;
    this.m.waiting = {
      reason: r.reason,
      message: r.message,
      since: this.m.waiting?.reason === r.reason ? this.m.waiting.since : now.toISOString(),
    };
  }

  status(nextSweepAt: string | undefined): StoreSweepStatus {
    return {
      connection: this.connection,
      cursor: this.m.cursor,
      everyMs: this.m.everyMs,
      sweeps: this.m.sweeps,
      ...(this.m.waiting !== undefined && { waiting: this.m.waiting }),
      ...(nextSweepAt !== undefined && { nextSweepAt }),
      ...(this.m.last !== undefined && { last: this.m.last }),
    };
  }
}
