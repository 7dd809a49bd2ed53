/**
 * `dropflow bench accounts` (issue 17): many supplier accounts on one fleet of workers (`--workers`, two by default), each
 * at its own tier. After a warm-up (one order per account), the small accounts' orders alone on
 * the idle fleet (the baseline), then the measured round: one account's backlog, and the small accounts' orders while it drains.
 * Measured per account by the sandbox (requests, refusals, the most in any 1 s) and by the orders'
 * own timelines; the backlog's Temporal actions from its workflows' histories.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { RATE_TIERS, type RateTier } from 'dropflow/contracts/accounts';
import { Env } from 'dropflow/config';
import type { Logger } from 'dropflow/log';
import type { SandboxStats } from '../sandbox/state.js';
import { countAccountActions } from './accountActions.js';
import { startAccountsFleet, type AccountsFleet } from './accountsFleet.js';
import { AccountRole, planAccounts } from './accountsPlan.js';
import { runRound, type RoundResult } from './accountsRound.js';
import { summarize, type AccountsBenchResult } from './accountsResult.js';
import { CALLS_PER_BATCH, CALLS_PER_BATCHED_ORDER, CALLS_PER_UNBATCHED_ORDER } from './bounds.js';
import { peakRssMb } from './rss.js';
import type { DropflowProcess } from '../localStack/dropflowProcess.js';
import { delay } from '../localStack/wait.js';

export interface AccountsBenchOptions {
  /** Accounts in the registry, the big one included. */
  accounts: number;
  /** Of those, the ones that get `smallOrders` orders each during the backlog. */
  smallAccounts: number;
  backlog: number;
  smallOrders: number;
  bigTier: RateTier;
  /** CHECKOUT_MAX_BATCH of the workers: B of the bound. */
  maxBatch: number;
  trackingEverySeconds: number;
  /** Workers at the start. */
  workers: number;
  /**
   * During the backlog, one more worker joins (at a fifth of its expected drain) and one of the
   * first leaves as a scale-down does, with SIGTERM (at half of it).
   */
  churn: boolean;
  /** Per round, from its first submit (default: twice the time its orders need, + 5 min). */
  deadlineMs?: number;
  keep: boolean;
  log: Logger;
  say: (line: string) => void;
}

export const DEFAULT_ACCOUNTS_BENCH = {
  accounts: 20,
  smallAccounts: 9,
  backlog: 1_000,
  smallOrders: 10,
  bigTier: 6,
  maxBatch: 100,
  workers: 2,
  // Hourly: the sweeps' queries of paid orders are tracking's cost, not the drain's.
  trackingEverySeconds: 3_600,
} as const;

const SLACK_MS = 300_000;

/** Twice the slowest small account's unbatched time: the round without a backlog. */
function idleDeadlineMs(o: AccountsBenchOptions): number {
  return ((2 * o.smallOrders * CALLS_PER_UNBATCHED_ORDER) / RATE_TIERS[0]) * 1_000 + SLACK_MS;
}

/** Twice the backlog's batched time at its tier, then the small accounts' round. */
function mainDeadlineMs(o: AccountsBenchOptions): number {
  const perOrder = CALLS_PER_BATCHED_ORDER + CALLS_PER_BATCH / Math.min(o.maxBatch, o.backlog);
  return ((2 * o.backlog * perOrder) / o.bigTier) * 1_000 + idleDeadlineMs(o);
}

export async function runAccountsBench(o: AccountsBenchOptions): Promise<AccountsBenchResult> {
  const started = Date.now();
  const plan = planAccounts(o);
  const workDir = await mkdtemp(join(tmpdir(), 'dropflow-bench-accounts-'));
  o.say(
    `bench accounts: ${o.accounts} accounts, a backlog of ${o.backlog} on ${plan[0]!.id} (${o.bigTier}/s), ` +
      `${o.smallOrders} orders on each of ${o.smallAccounts} others; files in ${workDir}`,
  );
  const fleet = await startAccountsFleet({
    workDir,
    accounts: plan,
    maxBatch: o.maxBatch,
    trackingEverySeconds: o.trackingEverySeconds,
    workers: o.workers,
    log: o.log,
  });
  let measured;
  try {
    measured = await measure(fleet, o);
  } finally {
    await fleet.close();
  }
  const summary = summarize({
    ...measured,
    plan,
    maxBatch: o.maxBatch,
    batchWindowMs: Env.parse({}).CHECKOUT_MAX_WAIT_MS,
  });
  const keep = o.keep || summary.failed.length > 0;
  if (!keep) await rm(workDir, { recursive: true, force: true });
  return {
    ...summary,
    fleet: { workers: o.workers, churn: o.churn },
    workDir: keep ? workDir : undefined,
    durationMs: Date.now() - started,
  };
}

/**
 * `--churn`: a worker joins at a fifth of the backlog's expected drain, and the first one leaves at
 * half of it, with SIGTERM as a scale-down or a rolling deploy stops it. Resolves with the peak RSS
 * of the worker it stopped, read just before.
 */
async function churn(
  fleet: AccountsFleet,
  o: AccountsBenchOptions,
  ended: AbortSignal,
): Promise<Map<DropflowProcess, number | undefined>> {
  const perOrder = CALLS_PER_BATCHED_ORDER + CALLS_PER_BATCH / Math.min(o.maxBatch, o.backlog);
  const drainMs = ((o.backlog * perOrder) / o.bigTier) * 1_000;
  const started = Date.now();
  const at = async (share: number) => {
    const wait = started + share * drainMs - Date.now();
    if (wait > 0 && !ended.aborted) await delay(wait);
    return !ended.aborted;
  };
  const stopped = new Map<DropflowProcess, number | undefined>();
  if (!(await at(0.2))) return stopped;
  o.say(`bench accounts: churn: worker ${fleet.workers.length + 1} joins`);
  await fleet.addWorker();
  if (!(await at(0.5))) return stopped;
  const leaving = fleet.workers[0]!;
  o.say('bench accounts: churn: worker 1 leaves (SIGTERM)');
  stopped.set(leaving, await peakRssMb(leaving.pid));
  await leaving.stop();
  return stopped;
}

async function measure(fleet: AccountsFleet, o: AccountsBenchOptions) {
  const big = fleet.accounts.find((a) => a.role === AccountRole.big)!;
  const small = fleet.accounts.filter((a) => a.role === AccountRole.small);
  const round = { backlog: o.backlog, smallOrders: o.smallOrders, say: o.say };

  // Unmeasured: each account's first order waits for its session's first token and its workers'
  // first tasks, which neither round below should carry.
  o.say('bench accounts: warming up, one order per account with orders');
  await runRound(fleet, {
    ...round,
    label: 'warm',
    small: [big, ...small],
    smallOrders: 1,
    deadlineMs: o.deadlineMs ?? idleDeadlineMs(o),
  });

  o.say('bench accounts: the small accounts alone on the idle fleet');
  const idle: RoundResult = await runRound(fleet, {
    ...round,
    label: 'idle',
    small,
    deadlineMs: o.deadlineMs ?? idleDeadlineMs(o),
  });

  // From here on, each account's counters are the measured round's.
  await Promise.all(fleet.accounts.map((a) => a.controls.resetStats()));
  const from = Date.now();
  o.say(`bench accounts: the backlog, and the small accounts' orders while it drains`);
  const ended = new AbortController();
  const churning = o.churn
    ? churn(fleet, o, ended.signal)
    : Promise.resolve(new Map<DropflowProcess, number | undefined>());
  const main = await runRound(fleet, {
    ...round,
    label: 'main',
    big,
    small,
    deadlineMs: o.deadlineMs ?? mainDeadlineMs(o),
  }).finally(() => {
    ended.abort();
  });
  const stoppedRss = await churning;
  const stats = new Map<string, SandboxStats>();
  for (const account of fleet.accounts) stats.set(account.id, await account.controls.stats());
  const workerRssMiB = await Promise.all(
    fleet.workers.map(async (w) => (w.running ? peakRssMb(w.pid) : stoppedRss.get(w))),
  );
  o.say(`bench accounts: counting the backlog's Temporal actions`);
  const bigActions = await countAccountActions(fleet.stack.client, big.id, {
    from,
    to: main.endedAt,
  });
  return { idle, main, stats, bigActions, workerRssMiB };
}
