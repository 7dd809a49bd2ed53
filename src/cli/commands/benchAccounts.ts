/**
 * `dropflow bench accounts` (issue 17): 20 supplier accounts on one fleet of workers, each at
 * its own tier; one account's backlog of flow-B orders, a few orders on nine others during it, and
 * the same small accounts alone on the idle fleet first. A table on stdout, with --json a last line
 * `{accounts: [...], big: {...}, workerRssMiB}`; progress on stderr. Exits 1 with the reasons
 * when a check fails (refusals, a rate above a tier, small accounts slower than on an idle fleet
 * plus one batch window, the backlog under 0.9 of its bound, calls, actions, timeouts, memory).
 */
import { InvalidArgumentError, type Command } from 'commander';

import { RATE_TIERS, type RateTier } from '../../accounts/contract.js';
import { createLogger } from '../../telemetry/log.js';
import { loadBenchTools } from '../devtools.js';
import { nonNegativeInt } from '../options.js';
import { printLines } from '../output.js';

/** Left out: the bench's defaults (tools/src/bench/accountsBench.ts DEFAULT_ACCOUNTS_BENCH). */
interface AccountsFlags {
  accounts?: number;
  smallAccounts?: number;
  backlog?: number;
  smallOrders?: number;
  bigTier?: RateTier;
  maxBatch?: number;
  trackingSeconds?: number;
  deadlineSeconds?: number;
  workers?: number;
  churn?: boolean;
  keep?: boolean;
  json?: boolean;
}

function wholeFrom(min: number, max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`must be a whole number from ${min} to ${max}`);
    }
    return n;
  };
}

function tier(value: string): RateTier {
  const n = Number(value);
  if (!(RATE_TIERS as readonly number[]).includes(n)) {
    throw new InvalidArgumentError(`must be a rate tier: ${RATE_TIERS.join(', ')}`);
  }
  return n as RateTier;
}

export function registerAccounts(bench: Command): void {
  bench
    .command('accounts')
    .description(
      'many supplier accounts on one fleet of workers (two by default): a backlog on one, small accounts beside it',
    )
    .option('--accounts <n>', 'accounts in the registry, the big one included', wholeFrom(1, 99))
    .option(
      '--small-accounts <n>',
      'accounts that get a few orders during the backlog',
      nonNegativeInt,
    )
    .option('--backlog <n>', "flow-B orders of the big account's backlog", wholeFrom(1, 100_000))
    .option('--small-orders <n>', 'orders of each small account', wholeFrom(1, 1_000))
    .option('--big-tier <r>', "the big account's tier (requests/s)", tier)
    .option(
      '--max-batch <n>',
      'CHECKOUT_MAX_BATCH of the workers: B of the bound',
      wholeFrom(1, 100),
    )
    .option(
      '--tracking-seconds <s>',
      'interval of the tracking sweeps (TRACKING_EVERY_SECONDS)',
      wholeFrom(1, 86_400),
    )
    .option(
      '--deadline-seconds <s>',
      'per round, stop waiting for the orders after this long (default: twice their time + 5 min)',
      wholeFrom(1, 86_400),
    )
    .option('--workers <n>', 'worker processes at the start (default 2)', wholeFrom(1, 16))
    .option(
      '--churn',
      'during the backlog, start one more worker, then stop one of the first (SIGTERM): the same checks must hold',
    )
    .option('--keep', 'keep the logs and databases even when every check passed')
    .option('--json', 'end with one line of JSON: {accounts: [...], big: {...}, workerRssMiB}')
    .action(async (flags: AccountsFlags) => {
      const { DEFAULT_ACCOUNTS_BENCH: d, ...bench } =
        await loadBenchTools('dropflow bench accounts');
      const say = (line: string) => process.stderr.write(`${line}\n`);
      const result = await bench.runAccountsBench({
        accounts: flags.accounts ?? d.accounts,
        smallAccounts: Math.min(
          flags.smallAccounts ?? d.smallAccounts,
          (flags.accounts ?? d.accounts) - 1,
        ),
        backlog: flags.backlog ?? d.backlog,
        smallOrders: flags.smallOrders ?? d.smallOrders,
        bigTier: flags.bigTier ?? d.bigTier,
        maxBatch: flags.maxBatch ?? d.maxBatch,
        trackingEverySeconds: flags.trackingSeconds ?? d.trackingEverySeconds,
        workers: flags.workers ?? d.workers,
        churn: flags.churn === true,
        ...(flags.deadlineSeconds !== undefined && { deadlineMs: flags.deadlineSeconds * 1000 }),
        keep: flags.keep === true,
        log: createLogger('bench'),
        say,
      });
      printLines(bench.formatAccountsBench(result));
      if (flags.json === true) process.stdout.write(`${bench.accountsBenchJson(result)}\n`);
      for (const reason of result.failed) say(`bench accounts: check failed: ${reason}`);
      if (result.failed.length > 0) process.exitCode = 1;
    });
}
