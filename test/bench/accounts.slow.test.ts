/**
 * `dropflow bench accounts` as a person runs it, small: 3 accounts on the bench's own fleet (two
 * workers, its own Temporal dev server and sandbox; the shared test server is not touched), a
 * backlog of 20 on the big account at 6/s, 3 orders on each of the 2 others (1/s and 2/s), first
 * alone on the idle fleet. Checked: the last line of JSON has the agreed shape, and each account's
 * numbers fit together and keep the fleet's promises that hold at any size (every order paid, no
 * timeouts, memory, no request refused with 1600200 and no second above an account's tier, across
 * both processes). The checks of pace and cost per order belong to the full-size run (a backlog of
 * 20 is mostly start-up): the exit code may be 1 for those alone.
 */
import { expect, it } from 'vitest';

import type { AccountsBenchJson } from '../../tools/src/bench/accountsResult.js';
import { runBench } from './runBench.js';

const BACKLOG = 20;
const SMALL_ORDERS = 3;
const TIERS = { 'bench-01': 6, 'bench-02': 1, 'bench-03': 2 } as Record<string, number>;
const ORDERS = {
  'bench-01': BACKLOG,
  'bench-02': SMALL_ORDERS,
  'bench-03': SMALL_ORDERS,
} as Record<string, number>;
/**
 * What only a full-size backlog can show: its pace against the bound, its calls and actions per
 * order (4 calls per batch of at most 20 are 0.2 per order), the small accounts against the idle
 * fleet.
 */
const AT_FULL_SIZE =
  /of its batched bound|supplier calls per order \(at most|Temporal actions per order \(at most|on an idle fleet \+ one batch window/;

type BenchLine = AccountsBenchJson;

it(
  'measures every account of the fleet: the JSON line’s shape, and numbers that fit together',
  async () => {
    const run = await runBench('accounts', [
      '--accounts',
      '3',
      '--small-accounts',
      '2',
      '--backlog',
      String(BACKLOG),
      '--small-orders',
      String(SMALL_ORDERS),
      '--json',
    ]);
    const output = `${run.stdout}\n${run.stderr}`;
    const failed = [...run.stderr.matchAll(/check failed: (.*)$/gm)].map((m) => m[1]!);
    expect(
      failed.filter((reason) => !AT_FULL_SIZE.test(reason)),
      output,
    ).toEqual([]);
    expect(run.code, output).toBe(failed.length === 0 ? 0 : 1);
    expect(run.stdout, output).toMatch(/p99 → PAID/);

    const last = run.stdout.trimEnd().split('\n').at(-1)!;
    const result = JSON.parse(last) as BenchLine;
    expect(Object.keys(result), last).toEqual(['accounts', 'big', 'workerRssMiB']);
    expect(Object.keys(result.big).sort()).toEqual(
      ['actionsPerOrder', 'callsPerOrder', 'fractionOfBound', 'orders', 'timeouts'].sort(),
    );
    expect(result.accounts.map((a) => a.id)).toEqual(Object.keys(TIERS));

    for (const a of result.accounts) {
      expect(Object.keys(a).sort(), a.id).toEqual(
        [
          'id',
          'tier',
          'orders',
          'callsPerOrder',
          'rateLimited',
          'peakRequestsPerSecond',
          'p50ToPaidMs',
          'p99ToPaidMs',
          'idleP99ToPaidMs',
        ].sort(),
      );
      expect(a, a.id).toMatchObject({ tier: TIERS[a.id], orders: ORDERS[a.id] });
      // Counted by the sandbox: the supplier refused nothing, and no account's busiest second (any
      // 1 s, across both processes) went above its tier.
      expect(a.rateLimited, a.id).toBe(0);
      expect(a.peakRequestsPerSecond, a.id).toBeGreaterThanOrEqual(1);
      expect(a.peakRequestsPerSecond, a.id).toBeLessThanOrEqual(a.tier);
      // Each order is created on its own; the batch's calls are shared.
      expect(a.callsPerOrder, a.id).toBeGreaterThanOrEqual(1);
      expect(a.p50ToPaidMs, a.id).toBeGreaterThan(0);
      expect(a.p50ToPaidMs!, a.id).toBeLessThanOrEqual(a.p99ToPaidMs!);
    }
    const [big, ...small] = result.accounts;
    expect(big!.idleP99ToPaidMs).toBeNull();
    for (const a of small) expect(a.idleP99ToPaidMs, a.id).toBeGreaterThan(0);

    expect(result.big).toMatchObject({ orders: BACKLOG, timeouts: 0 });
    expect(result.big.callsPerOrder).toBe(big!.callsPerOrder);
    // Batched: well under the 5 calls of an order paid alone.
    expect(result.big.callsPerOrder).toBeLessThan(2);
    expect(result.big.fractionOfBound).toBeGreaterThan(0);
    // The bound is the tier's own pace; a whisker over it is the first call's head start.
    expect(result.big.fractionOfBound).toBeLessThanOrEqual(1.1);
    // At least each order's start and its create.
    expect(result.big.actionsPerOrder).toBeGreaterThanOrEqual(2);
    expect(result.workerRssMiB).toBeGreaterThan(0);
    expect(result.workerRssMiB).toBeLessThan(1_024);
  },
  10 * 60_000,
);
