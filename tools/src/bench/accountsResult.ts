/**
 * The figures of `dropflow bench accounts` from its two rounds, and the checks they must pass
 * (issue 17): no refusals, no account above its tier in any 1 s, the small accounts as fast as on
 * an idle fleet plus one batch window, the backlog at ≥ 0.9 of its batched bound with ≤ 1.05
 * supplier calls and ≤ 12 Temporal actions per order and no timeouts, workers under 1 GiB.
 */
import { quantile } from '../localStack/toCreated.js';
import { emptyStats, type SandboxStats } from '../sandbox/state.js';
import type { AccountActions } from './accountActions.js';
import { AccountRole, type BenchAccount } from './accountsPlan.js';
import type { AccountRound, RoundResult } from './accountsRound.js';
import { CALLS_PER_BATCH, CALLS_PER_BATCHED_ORDER } from './bounds.js';
import { callsBetween } from './supplierCalls.js';

export const LIMITS = {
  fractionOfBound: 0.9,
  callsPerOrder: 1.05,
  actionsPerOrder: 10,
  workerRssMiB: 1_024,
} as const;

/** One account in the `--json` line. */
export interface AccountFigures {
  id: string;
  tier: number;
  orders: number;
  /** Every request of the account until the supplier had all its orders paid, ÷ orders. */
  callsPerOrder: number | null;
  /** Requests refused with 1600200 during the measured round. */
  rateLimited: number;
  /** The most requests the sandbox saw from the account in any 1 s of the measured round. */
  peakRequestsPerSecond: number;
  p50ToPaidMs: number | null;
  p99ToPaidMs: number | null;
  /** The same orders' p99 on an idle fleet (small accounts only). */
  idleP99ToPaidMs: number | null;
}

export interface BigFigures {
  orders: number;
  /** Orders per second to PAID ÷ the account's tier ÷ (1 + 4/B). */
  fractionOfBound: number | null;
  callsPerOrder: number | null;
  /** Temporal actions of the account's workflows during the round, ÷ orders. */
  actionsPerOrder: number;
  timeouts: number;
}

/** The `--json` line, exactly. */
export interface AccountsBenchJson {
  accounts: AccountFigures[];
  big: BigFigures;
  /** The larger peak RSS (VmHWM) of the two worker processes, MiB. */
  workerRssMiB: number | null;
}

export interface AccountsBenchResult {
  json: AccountsBenchJson;
  roles: Record<string, AccountRole>;
  /** Orders PAID per account in the measured round. */
  paid: Record<string, number>;
  bigId: string;
  /** The batch size B of the bound: the workers' CHECKOUT_MAX_BATCH, at most the backlog. */
  batchSize: number;
  /** One batch window: the workers' CHECKOUT_MAX_WAIT_MS. */
  batchWindowMs: number;
  /** First backlog submit → its last PAID, seconds. */
  drainSeconds: number | null;
  backlogUnpaidAtSmallSubmit: number | undefined;
  executions: number;
  /** The busiest second of each account that went over its tier, as the sandbox saw it. */
  overTier: Record<string, NonNullable<SandboxStats['peakWindow']>>;
  /** Why the run failed, one line per check; empty: every check passed. */
  failed: string[];
  /** The fleet the run started with, and whether it churned (`--workers`, `--churn`). */
  fleet: { workers: number; churn: boolean };
  workDir: string | undefined;
  durationMs: number;
}

export interface Measured {
  plan: readonly BenchAccount[];
  idle: RoundResult;
  main: RoundResult;
  /** Each account's counters over the measured round (sandbox controls). */
  stats: ReadonlyMap<string, SandboxStats>;
  bigActions: AccountActions;
  workerRssMiB: (number | undefined)[];
  maxBatch: number;
  batchWindowMs: number;
}

const orNull = (x: number) => (Number.isFinite(x) ? x : null);

function percentiles(toPaidMs: readonly number[]): { p50: number | null; p99: number | null } {
  const sorted = [...toPaidMs].sort((a, b) => a - b);
  return { p50: orNull(quantile(sorted, 0.5)), p99: orNull(quantile(sorted, 0.99)) };
}

function callsPerOrder(round: AccountRound | undefined): number | null {
  if (round?.atPaid === undefined || round.orders === 0) return null;
  // The counters started again at the round's start: everything in them is the round's.
  return callsBetween(emptyStats(), round.atPaid).total / round.orders;
}

export function summarize(
  m: Measured,
): Omit<AccountsBenchResult, 'fleet' | 'workDir' | 'durationMs'> {
  const big = m.plan.find((a) => a.role === AccountRole.big)!;
  const accounts = m.plan.map((a): AccountFigures => {
    const round = m.main.byAccount.get(a.id);
    const idle = m.idle.byAccount.get(a.id);
    const stats = m.stats.get(a.id);
    const { p50, p99 } = percentiles(round?.toPaidMs ?? []);
    return {
      id: a.id,
      tier: a.tier,
      orders: a.orders,
      callsPerOrder: callsPerOrder(round),
      rateLimited: stats?.rateLimited ?? 0,
      peakRequestsPerSecond: stats?.peakRequestsPerSecond ?? 0,
      p50ToPaidMs: p50,
      p99ToPaidMs: p99,
      idleP99ToPaidMs: idle === undefined ? null : percentiles(idle.toPaidMs).p99,
    };
  });

  const bigRound = m.main.byAccount.get(big.id)!;
  const batchSize = Math.max(1, Math.min(m.maxBatch, big.orders));
  const drainSeconds =
    bigRound.lastPaidAt === undefined || bigRound.firstSubmitAt === undefined
      ? null
      : (bigRound.lastPaidAt - bigRound.firstSubmitAt) / 1_000;
  const boundPerSecond = big.tier / (CALLS_PER_BATCHED_ORDER + CALLS_PER_BATCH / batchSize);
  const rss = m.workerRssMiB.filter((x): x is number => x !== undefined);
  const json: AccountsBenchJson = {
    accounts,
    big: {
      orders: big.orders,
      fractionOfBound:
        drainSeconds === null || drainSeconds <= 0
          ? null
          : big.orders / drainSeconds / boundPerSecond,
      callsPerOrder: callsPerOrder(bigRound),
      actionsPerOrder: big.orders === 0 ? 0 : m.bigActions.actions / big.orders,
      timeouts: m.bigActions.timeouts,
    },
    workerRssMiB: rss.length === m.workerRssMiB.length && rss.length > 0 ? Math.max(...rss) : null,
  };
  const paid = Object.fromEntries(
    m.plan.map((a) => [
      a.id,
      (m.main.byAccount.get(a.id)?.toPaidMs ?? []).filter(Number.isFinite).length,
    ]),
  );
  const result = {
    json,
    roles: Object.fromEntries(m.plan.map((a) => [a.id, a.role])),
    paid,
    bigId: big.id,
    batchSize,
    batchWindowMs: m.batchWindowMs,
    drainSeconds,
    backlogUnpaidAtSmallSubmit: m.main.backlogUnpaidAtSmallSubmit,
    executions: m.bigActions.executions,
    overTier: Object.fromEntries(
      accounts
        .filter((a) => a.peakRequestsPerSecond > a.tier)
        .map((a) => [a.id, m.stats.get(a.id)?.peakWindow ?? []]),
    ),
    failed: [] as string[],
  };
  result.failed = failedChecks(result);
  return result;
}

const s = (ms: number) => `${(ms / 1_000).toFixed(1)} s`;
const two = (x: number) => x.toFixed(2);

/** One line per check that failed, naming the account, the figure and the limit. */
export function failedChecks(
  r: Pick<AccountsBenchResult, 'json' | 'roles' | 'paid' | 'batchWindowMs'>,
): string[] {
  const failed: string[] = [];
  for (const a of r.json.accounts) {
    if (a.rateLimited > 0) {
      failed.push(`${a.id}: ${a.rateLimited} requests refused with 1600200 (goal: none)`);
    }
    if (a.peakRequestsPerSecond > a.tier) {
      failed.push(
        `${a.id}: ${a.peakRequestsPerSecond} requests in 1 s, above its tier of ${a.tier}/s`,
      );
    }
    const paid = r.paid[a.id] ?? 0;
    if (paid < a.orders) failed.push(`${a.id}: ${a.orders - paid} of ${a.orders} orders not PAID`);
    if (r.roles[a.id] === AccountRole.small) failed.push(...smallAccountChecks(a, r.batchWindowMs));
  }
  const big = r.json.big;
  if (big.fractionOfBound === null) {
    failed.push('big: the backlog did not drain, no fraction of its bound');
  } else if (big.fractionOfBound < LIMITS.fractionOfBound) {
    failed.push(
      `big: drained at ${two(big.fractionOfBound)} of its batched bound (at least ${LIMITS.fractionOfBound})`,
    );
  }
  if (big.callsPerOrder === null || big.callsPerOrder > LIMITS.callsPerOrder) {
    failed.push(
      `big: ${big.callsPerOrder === null ? 'unknown' : two(big.callsPerOrder)} supplier calls per order (at most ${LIMITS.callsPerOrder})`,
    );
  }
  if (big.actionsPerOrder > LIMITS.actionsPerOrder) {
    failed.push(
      `big: ${two(big.actionsPerOrder)} Temporal actions per order (at most ${LIMITS.actionsPerOrder})`,
    );
  }
  if (big.timeouts > 0) failed.push(`big: ${big.timeouts} timeouts (goal: none)`);
  if (r.json.workerRssMiB === null) {
    failed.push('workers: peak RSS unknown (no /proc)');
  } else if (r.json.workerRssMiB >= LIMITS.workerRssMiB) {
    failed.push(
      `workers: ${r.json.workerRssMiB.toFixed(0)} MiB peak RSS (under ${LIMITS.workerRssMiB})`,
    );
  }
  return failed;
}

function smallAccountChecks(a: AccountFigures, batchWindowMs: number): string[] {
  if (a.p99ToPaidMs === null || a.idleP99ToPaidMs === null) {
    return [`${a.id}: p99 to PAID unknown (orders not PAID, here or on the idle fleet)`];
  }
  if (a.p99ToPaidMs <= a.idleP99ToPaidMs + batchWindowMs) return [];
  return [
    `${a.id}: p99 to PAID ${s(a.p99ToPaidMs)}, above ${s(a.idleP99ToPaidMs)} on an idle fleet + one batch window of ${s(batchWindowMs)}`,
  ];
}
