/**
 * The fleet's grid (supplier/fleetGrid.ts): who owns each slot, and an account paced by a busy
 * fleet on a fake clock. A second holds tier + 1 calls only if two calls a tier of slots apart
 * come within 1 s, so with own seconds those two are always one process's, which keeps them apart
 * by its own clock; the grid then needs little slack, and a late call still goes.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { classSlotEvery, gridPace, ownerOf } from '../../src/supplier/fleetGrid.js';
import { AccountPacing } from '../../src/supplier/pacing.js';
import { busiestSecond } from '../support/rate.js';

const T0 = Date.UTC(2026, 10, 28, 12, 0, 0);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T0 });
});

afterEach(() => {
  vi.useRealTimers();
});

const TIERS = [1, 2, 4, 6];
const SIZES = [2, 3, 4, 5, 6, 7];

describe('whose each slot is', () => {
  it('two slots a tier apart are one process’s whenever the fleet is no larger than the tier', () => {
    for (const tier of TIERS) {
      for (const of of SIZES) {
        const own = of <= tier;
        expect(gridPace(of, tier).kind).toBe(own ? 'own' : 'shared');
        for (let k = 0; k < 10 * tier * of; k++) {
          const same = ownerOf(k, of, tier) === ownerOf(k + tier, of, tier);
          if (own) expect(same, `tier ${tier}, ${of} processes, slot ${k}`).toBe(true);
        }
      }
    }
  });

  it('every process has slots, and its turn at the batch queries, which keep their own 2/s', () => {
    for (const tier of TIERS) {
      for (const of of SIZES) {
        const pace = gridPace(of, tier);
        const n = classSlotEvery(of, tier, 2);
        const owners = new Set<number>();
        const batchOwners = new Set<number>();
        for (let k = 0; k < 2 * tier * of * n; k++) {
          owners.add(ownerOf(k, of, tier));
          if (k % n === 0) batchOwners.add(ownerOf(k, of, tier));
        }
        expect(owners.size, `tier ${tier}, ${of} processes`).toBe(of);
        expect(batchOwners.size, `tier ${tier}, ${of} processes`).toBe(of);
        // Two batch intervals span 1 s even when the first call left as late as it may.
        expect(2 * n * pace.periodMs - pace.catchUpMs).toBeGreaterThan(1_000);
      }
    }
  });

  it('two processes’ calls are more than a second apart for any tier + 1 slots, each as late as it may leave', () => {
    for (const tier of TIERS) {
      for (const of of SIZES) {
        const pace = gridPace(of, tier);
        // The closest two calls of different processes can come, with tier + 1 slots between them.
        const span = (of <= tier ? tier + 1 : tier) * pace.periodMs - pace.catchUpMs;
        expect(span, `tier ${tier}, ${of} processes`).toBeGreaterThanOrEqual(1_000 + 25);
      }
    }
  });
});

/** A seeded generator (mulberry32): the same busy spells on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * `of` processes, each with a call always waiting, on a busy machine: between a slot's timer and
 * the write, a call is held a few ms, and one in ten up to 70 ms (a garbage collection, a busy
 * core). It leaves then, or not at all past its slot's deadline, as the supplier client sends.
 */
async function busyFleet(tier: number, of: number, seconds: number): Promise<number[]> {
  const next = random(tier * 100 + of);
  const held = () => (next() < 0.9 ? next() * 10 : 20 + next() * 50);
  const pacings = Array.from(
    { length: of },
    (_, index) => new AccountPacing({ perSecond: tier, batchPerSecond: 2, fleet: { index, of } }),
  );
  const sent: number[] = [];
  const end = T0 + seconds * 1_000;
  const loops = pacings.map(async (pacing) => {
    while (Date.now() < end) {
      const slot = await pacing.take('standard');
      await new Promise((resolve) => setTimeout(resolve, Math.round(held())));
      if (slot !== undefined && Date.now() > slot.by) continue;
      sent.push(Date.now());
      slot?.sent(Date.now());
    }
  });
  await vi.advanceTimersByTimeAsync(seconds * 1_000 + 2_000);
  await Promise.all(loops);
  return sent.filter((t) => t < end);
}

describe('an account paced by a busy fleet', () => {
  for (const [tier, of] of [
    [6, 2],
    [6, 3],
    [6, 4],
    [4, 2],
    [2, 2],
  ] as const) {
    it(`${of} processes at tier ${tier}, their calls held up to 70 ms, keep to the tier and lose few slots to late calls`, async () => {
      const seconds = 120;
      const sent = await busyFleet(tier, of, seconds);
      expect(busiestSecond(sent)).toBeLessThanOrEqual(tier);
      // 0.95 here; a grid that lets a call leave at most 20 ms after its slot uses 0.86.
      expect(sent.length / (tier * seconds)).toBeGreaterThan(0.92);
    });
  }
});
