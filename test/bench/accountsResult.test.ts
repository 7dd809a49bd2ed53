/**
 * The figures and checks of `dropflow bench accounts` from given rounds (no fleet): the account
 * plan, the bound of the backlog, the JSON line's exact shape, and one named reason per check
 * that fails.
 */
import { describe, expect, it } from 'vitest';

import { planAccounts, type BenchAccount } from '../../tools/src/bench/accountsPlan.js';
import type { AccountRound, RoundResult } from '../../tools/src/bench/accountsRound.js';
import { summarize, type Measured } from '../../tools/src/bench/accountsResult.js';
import { accountsBenchJson, formatAccountsBench } from '../../tools/src/bench/accountsReport.js';
import { emptyStats, type SandboxStats } from '../../tools/src/sandbox/state.js';

const T0 = 1_800_000_000_000;
const WINDOW_MS = 30_000;
const FLEET = { workers: 2, churn: false };

function stats(calls: number, more: Partial<SandboxStats> = {}): SandboxStats {
  return { ...emptyStats(), calls: { 'shopping/order/createOrderV3': calls }, ...more };
}

function round(toPaidMs: number[], calls: number, lastPaidAt?: number): AccountRound {
  return {
    orders: toPaidMs.length,
    toPaidMs,
    firstSubmitAt: T0,
    lastPaidAt: lastPaidAt ?? T0 + Math.max(...toPaidMs),
    atPaid: stats(calls),
  };
}

function rounds(entries: [string, AccountRound][]): RoundResult {
  return { byAccount: new Map(entries), backlogUnpaidAtSmallSubmit: 90, endedAt: T0 + 200_000 };
}

/** 3 accounts: a backlog of 100 at 6/s (B 100: bound 100 ÷ (6 ÷ 1.04) ≈ 17.3 s), two small. */
function measured(o: { drainMs: number; bigCalls: number; smallP99: number }): Measured {
  const plan: BenchAccount[] = planAccounts({
    accounts: 3,
    smallAccounts: 2,
    backlog: 100,
    smallOrders: 2,
    bigTier: 6,
  });
  return {
    plan,
    idle: rounds([
      ['bench-02', round([4_000, 5_000], 6)],
      ['bench-03', round([3_000, 4_000], 6)],
    ]),
    main: rounds([
      ['bench-01', round(Array(100).fill(o.drainMs) as number[], o.bigCalls, T0 + o.drainMs)],
      ['bench-02', round([4_500, o.smallP99], 6)],
      ['bench-03', round([3_000, 4_000], 6)],
    ]),
    stats: new Map([
      ['bench-01', stats(o.bigCalls, { peakRequestsPerSecond: 6 })],
      ['bench-02', stats(6, { peakRequestsPerSecond: 1 })],
      ['bench-03', stats(6, { peakRequestsPerSecond: 2 })],
    ]),
    bigActions: { executions: 104, actions: 800, timeouts: 0 },
    workerRssMiB: [600, 700],
    maxBatch: 100,
    batchWindowMs: WINDOW_MS,
  };
}

describe('planAccounts', () => {
  it('gives the backlog to the first account and the tiers round 1, 2, 4, 6 to the others', () => {
    const plan = planAccounts({
      accounts: 20,
      smallAccounts: 9,
      backlog: 1_000,
      smallOrders: 10,
      bigTier: 6,
    });
    expect(plan).toHaveLength(20);
    expect(plan[0]).toEqual({ id: 'bench-01', tier: 6, role: 'big', orders: 1_000 });
    expect(plan.slice(1, 6).map((a) => a.tier)).toEqual([1, 2, 4, 6, 1]);
    expect(plan.filter((a) => a.role === 'small').map((a) => a.orders)).toEqual(Array(9).fill(10));
    expect(plan.filter((a) => a.role === 'idle')).toHaveLength(10);
  });
});

describe('the report', () => {
  it('names the fleet the run was given, and its churn', () => {
    const r = summarize(measured({ drainMs: 18_000, bigCalls: 104, smallP99: 5_000 }));
    const heading = (fleet: typeof FLEET) =>
      formatAccountsBench({ ...r, fleet, workDir: undefined, durationMs: 1 })[0];
    expect(heading({ workers: 3, churn: false })).toMatch(/ on one fleet of 3 workers; /);
    expect(heading({ workers: 1, churn: false })).toMatch(/ on one fleet of 1 worker; /);
    expect(heading({ workers: 3, churn: true })).toMatch(
      / fleet of 3 workers \(churn: worker 4 joined, worker 1 left\); /,
    );
  });
});

describe('summarize', () => {
  it('passes a run that keeps every promise, and prints the agreed JSON line', () => {
    const r = summarize(measured({ drainMs: 18_000, bigCalls: 104, smallP99: 5_000 }));
    expect(r.failed).toEqual([]);
    expect(r.json.big.callsPerOrder).toBeCloseTo(1.04);
    // 100 orders in 18 s against 6 ÷ 1.04 per second.
    expect(r.json.big.fractionOfBound).toBeCloseTo(100 / 18 / (6 / 1.04));
    expect(r.json.big.actionsPerOrder).toBe(8);

    const line = JSON.parse(
      accountsBenchJson({ ...r, fleet: FLEET, workDir: undefined, durationMs: 1 }),
    ) as Record<string, unknown>;
    expect(Object.keys(line)).toEqual(['accounts', 'big', 'workerRssMiB']);
    expect(line['workerRssMiB']).toBe(700);
    expect((line['accounts'] as unknown[])[1]).toEqual({
      id: 'bench-02',
      tier: 1,
      orders: 2,
      callsPerOrder: 3,
      rateLimited: 0,
      peakRequestsPerSecond: 1,
      p50ToPaidMs: 4_500,
      p99ToPaidMs: 5_000,
      idleP99ToPaidMs: 5_000,
    });
  });

  it('names each check that fails', () => {
    const m = measured({ drainMs: 40_000, bigCalls: 120, smallP99: 5_000 + WINDOW_MS + 1_000 });
    m.stats = new Map([
      ...m.stats,
      [
        'bench-03',
        stats(6, {
          peakRequestsPerSecond: 3,
          rateLimited: 2,
          peakWindow: [
            { ms: 0, path: 'a' },
            { ms: 4, path: 'b' },
            { ms: 990, path: 'a' },
          ],
        }),
      ],
    ]);
    m.bigActions = { executions: 104, actions: 1_300, timeouts: 1 };
    m.workerRssMiB = [1_100, undefined];
    const summary = summarize(m);
    // Only the account over its tier has its busiest second shown.
    expect(summary.overTier).toEqual({
      'bench-03': [
        { ms: 0, path: 'a' },
        { ms: 4, path: 'b' },
        { ms: 990, path: 'a' },
      ],
    });
    expect(summary.failed).toEqual([
      'bench-02: p99 to PAID 36.0 s, above 5.0 s on an idle fleet + one batch window of 30.0 s',
      'bench-03: 2 requests refused with 1600200 (goal: none)',
      'bench-03: 3 requests in 1 s, above its tier of 2/s',
      'big: drained at 0.43 of its batched bound (at least 0.9)',
      'big: 1.20 supplier calls per order (at most 1.05)',
      'big: 13.00 Temporal actions per order (at most 10)',
      'big: 1 timeouts (goal: none)',
      'workers: peak RSS unknown (no /proc)',
    ]);
  });

  it('counts an order never PAID as endless: 2 of 100 leave no p99, and no fraction', () => {
    const m = measured({ drainMs: 18_000, bigCalls: 104, smallP99: 5_000 });
    const unpaid = Array(100).fill(18_000) as number[];
    unpaid[98] = Number.POSITIVE_INFINITY;
    unpaid[99] = Number.POSITIVE_INFINITY;
    m.main.byAccount.set('bench-01', {
      ...round(unpaid.slice(0, 98), 104),
      orders: 100,
      toPaidMs: unpaid,
      lastPaidAt: undefined,
      atPaid: undefined,
    });
    const r = summarize(m);
    expect(r.json.accounts[0]).toMatchObject({ p50ToPaidMs: 18_000, p99ToPaidMs: null });
    expect(r.json.big.fractionOfBound).toBeNull();
    expect(r.failed).toContain('bench-01: 2 of 100 orders not PAID');
  });
});
