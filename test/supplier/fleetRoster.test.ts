/**
 * The roster of an elastic fleet (supplier/fleetRoster.ts) and the grid it gives each process, on a
 * fake clock: processes that read the same report of the membership queue's pollers agree on every
 * slot's owner; one joining, leaving or crashing moves the slots without any second of an account
 * holding more than its tier.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import {
  FLEET_TIMING,
  FleetRoster,
  memberIdentity,
  type Poller,
} from '../../src/supplier/fleetRoster.js';
import { gridPace } from '../../src/supplier/fleetGrid.js';
import { AccountPacing } from '../../src/supplier/pacing.js';
import { busiestSecond } from '../support/rate.js';

const T0 = Date.UTC(2026, 10, 27, 12, 0, 0);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T0 });
});

afterEach(() => {
  vi.useRealTimers();
});

/** A process as the membership queue's pollers show it. */
interface Proc {
  id: string;
  joinedAt: number;
  leaveAt?: number;
  /** It stopped polling (a crash) at this time. */
  crashedAt?: number;
  roster: FleetRoster;
}

function proc(id: string, joinedAt: number): Proc {
  return { id, joinedAt, roster: new FleetRoster(`test:${id}`, id) };
}

/** The pollers the server reports at `now`: each live process polled a moment ago. */
function report(procs: readonly Proc[], now: number): Poller[] {
  return procs
    .filter((p) => p.joinedAt <= now)
    .flatMap((p) => {
      const lastAccessMs = Math.min(now, p.crashedAt ?? now);
      const base = { identity: memberIdentity(p.id, p.joinedAt), lastAccessMs };
      if (p.leaveAt === undefined) return [base];
      return [base, { identity: memberIdentity(p.id, p.joinedAt, p.leaveAt), lastAccessMs }];
    });
}

/** Every live process reads the same report. */
function readAll(procs: readonly Proc[], now = Date.now()): void {
  const pollers = report(procs, now);
  for (const p of procs)
    if (p.crashedAt === undefined || p.crashedAt > now) p.roster.update(pollers, now);
}

describe('the roster of an elastic fleet', () => {
  it('processes that read the same report take distinct seats, and every moment has one owner per seat', () => {
    const procs = ['b', 'a', 'c'].map((id) => proc(id, T0));
    const now = T0 + FLEET_TIMING.joinDelayMs + 1_500;
    vi.setSystemTime(now);
    readAll(procs, now);
    const seats = procs.map((p) => p.roster.seatAt(now));
    expect(seats).toEqual([
      { kind: 'seat', index: 1, of: 3 },
      { kind: 'seat', index: 0, of: 3 },
      { kind: 'seat', index: 2, of: 3 },
    ]);
    expect(procs.map((p) => p.roster.size())).toEqual([3, 3, 3]);
  });

  it('a process joins only once every other has had time to see it', () => {
    const a = proc('a', T0);
    const b = proc('b', T0 + 10_000);
    readAll([a, b], T0 + 5_000);
    expect(a.roster.seatAt(T0 + 5_000)).toEqual({ kind: 'alone' });
    readAll([a, b], T0 + 10_500);
    // Seen at once, but its slots start joinDelayMs after it first polled, after a quiet second.
    const from = T0 + 10_000 + FLEET_TIMING.joinDelayMs;
    expect(a.roster.seatAt(from - 1)).toEqual({ kind: 'alone' });
    expect(b.roster.seatAt(from - 1)).toEqual({ kind: 'out' });
    for (const p of [a, b]) expect(p.roster.seatAt(from + 10).kind).toBe('out');
    const after = from + FLEET_TIMING.quietMs;
    readAll([a, b], after - 500);
    expect([a, b].map((p) => p.roster.seatAt(after))).toEqual([
      { kind: 'seat', index: 0, of: 2 },
      { kind: 'seat', index: 1, of: 2 },
    ]);
  });

  it('a process that cannot read the roster, or that the server no longer sees poll, stops sending first', () => {
    const [a, b] = [proc('a', T0), proc('b', T0)];
    const now = T0 + 6_000;
    readAll([a, b], now);
    expect(a.roster.seatAt(now).kind).toBe('seat');
    // a reads no more: it is out once its last read is viewStaleMs old, though it still polls ...
    const later = now + FLEET_TIMING.viewStaleMs;
    expect(a.roster.seatAt(later).kind).toBe('out');
    b.roster.update(report([a, b], later), later);
    expect(b.roster.seatAt(later)).toEqual({
      kind: 'seat',
      index: 1,
      of: 2,
    });
  });
});

describe('an account paced by an elastic fleet', () => {
  it('a process keeps a line of its own slots longer than its roster is good for: nobody in it is refused', async () => {
    const [a, b] = [proc('a', T0), proc('b', T0)];
    vi.setSystemTime(T0 + 6_000);
    readAll([a, b]);
    const pacing = new AccountPacing({ perSecond: 6, batchPerSecond: 2, fleet: a.roster });
    // Twelve of a's own slots (every other of the fleet's, 348 ms apart): 4.2 s, within the 5 s
    // a caller may wait, though a's roster is good for 2.5 s from each read.
    const calls = Array.from({ length: 12 }, () =>
      pacing.take('standard', { maxWaitMs: 5_000 }).then(
        () => Date.now(),
        (err: unknown) => err,
      ),
    );
    for (let s = 0; s < 6; s++) {
      await vi.advanceTimersByTimeAsync(1_000);
      readAll([a, b]);
    }
    const sent = await Promise.all(calls);
    expect(sent.filter((t) => typeof t !== 'number')).toEqual([]);
    const gaps = (sent as number[]).slice(1).map((t, i) => t - (sent[i] as number));
    // Its own slots: a call may leave up to the catch-up after one, the next goes in the next.
    const { periodMs, catchUpMs } = gridPace(2, 6);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(2 * periodMs - catchUpMs - 1);
  });

  /**
   * Runs `procs` sending the account's calls as fast as their seats allow for `ms`, every live one
   * reading the roster each second; `events` change the fleet at given times.
   */
  async function run(
    procs: Proc[],
    tier: number,
    ms: number,
    events: [number, () => void][],
    gridPhase = 0.3,
  ): Promise<Map<string, number[]>> {
    const sent = new Map<string, number[]>(procs.map((p) => [p.id, []]));
    const pacings = new Map(
      procs.map((p) => [
        p.id,
        new AccountPacing({ perSecond: tier, batchPerSecond: 2, fleet: p.roster, gridPhase }),
      ]),
    );
    const end = T0 + ms;
    const live = (p: Proc) =>
      Date.now() >= p.joinedAt &&
      (p.crashedAt ?? Infinity) > Date.now() &&
      (p.leaveAt ?? Infinity) > Date.now();
    // Each process has a call waiting whenever it is in the fleet, as a busy worker would.
    const loops = procs.map(async (p) => {
      while (Date.now() < end) {
        if (!live(p)) {
          await new Promise((r) => setTimeout(r, 100));
          continue;
        }
        await pacings
          .get(p.id)!
          .take('standard', { maxWaitMs: 5_000 })
          .then(
            (slot) => {
              if (!live(p)) return;
              sent.get(p.id)!.push(Date.now());
              slot?.sent(Date.now());
            },
            // Refused (no own slot in sight): it looks again a little later.
            () => new Promise((r) => setTimeout(r, 100)),
          );
      }
    });
    const pending = [...events].sort((x, y) => x[0] - y[0]);
    for (let t = T0; t < end; t += 1_000) {
      while (pending.length > 0 && pending[0]![0] <= t - T0) pending.shift()![1]();
      readAll(procs);
      await vi.advanceTimersByTimeAsync(1_000);
    }
    await vi.advanceTimersByTimeAsync(6_000);
    await Promise.all(loops);
    return sent;
  }

  for (const tier of [2, 6]) {
    it(`one alone, a second joining, then the first leaving: never more than ${tier} in a second (tier ${tier})`, async () => {
      for (const phase of [0, 0.25, 0.5, 0.75]) {
        vi.setSystemTime(T0);
        const a = proc('a', T0);
        const b = proc('b', T0 + 10_000);
        const sent = await run(
          [a, b],
          tier,
          40_000,
          [
            [25_000, () => (a.leaveAt = Date.now() + FLEET_TIMING.leaveDelayMs)],
            [
              25_000,
              () => {
                a.roster.leave(a.leaveAt!);
              },
            ],
          ],
          phase,
        );
        expect(busiestSecond([...sent.values()].flat()), `phase ${phase}`).toBeLessThanOrEqual(
          tier,
        );
        expect(sent.get('a')!.filter((t) => t < T0 + 10_000).length).toBeGreaterThan(tier * 5);
        expect(sent.get('b')!.filter((t) => t > T0 + 35_000).length).toBeGreaterThan(tier * 3);
      }
    });
  }

  // Tier 2: two processes own their seconds, three share them, and two own them again.
  for (const tier of [1, 2, 6]) {
    it(`two, then a third joining, then one crashing and one leaving: never more than ${tier} in a second (tier ${tier})`, async () => {
      const a = proc('a', T0);
      const b = proc('b', T0);
      const c = proc('c', T0 + 20_000);
      const sent = await run([a, b, c], tier, 60_000, [
        [35_000, () => (b.crashedAt = Date.now())],
        [48_000, () => (a.leaveAt = Date.now() + FLEET_TIMING.leaveDelayMs)],
        [
          48_000,
          () => {
            a.roster.leave(a.leaveAt!);
          },
        ],
      ]);
      const all = [...sent.values()].flat();
      expect(busiestSecond(all)).toBeLessThanOrEqual(tier);
      // Each took part while it was in the fleet: c after joining, c alone at the end.
      expect(sent.get('c')!.some((t) => t > T0 + 25_000 && t < T0 + 35_000)).toBe(true);
      expect(sent.get('c')!.filter((t) => t > T0 + 55_000).length).toBeGreaterThanOrEqual(tier * 3);
      // The crashed one's slots are taken over within seconds: c sends at about the tier alone.
      const lastSeconds = all.filter((t) => t > T0 + 55_000 && t <= T0 + 60_000);
      expect(lastSeconds.length).toBeGreaterThanOrEqual(tier * 4);
    });
  }
});
