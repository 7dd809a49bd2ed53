/** The options of `npm run chaos`, parsed (main.ts runs them). */
import { Command, InvalidArgumentError } from 'commander';

import { DEFAULT_CHAOS_OPTIONS, type ChaosOptions } from './run.js';

function wholeNumber(min: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) {
      throw new InvalidArgumentError(`must be a whole number ≥ ${min}`);
    }
    return n;
  };
}

function fraction(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) {
    throw new InvalidArgumentError('must be a number from 0 to 1');
  }
  return n;
}

interface Flags {
  orders: number;
  seed?: number;
  json?: boolean;
  rate: number;
  batchRate: number;
  trackingEvery: number;
  lifecycleMs: number;
  batchLagMs: number;
  kills: number;
  latencyCalls?: number;
  latencyMs: number;
  quota?: boolean;
  operatorFaults?: boolean;
  tokenFaults?: boolean;
  loweredLimits?: boolean;
  disputes: number;
  splits: number;
  gateway: boolean;
  windowSeconds?: number;
  deadlineSeconds?: number;
  keep?: boolean;
}

const d = DEFAULT_CHAOS_OPTIONS;

export interface ChaosArgs {
  options: Omit<ChaosOptions, 'progress'>;
  json: boolean;
}

/** The options of `npm run chaos -- <argv>` (user arguments only); the seed drawn when not given. */
export function parseChaosArgs(argv: readonly string[], randomSeed: () => number): ChaosArgs {
  const program = chaosCommand();
  program.parse(argv, { from: 'user' });
  const flags = program.opts<Flags>();
  return {
    json: flags.json === true,
    options: {
      orders: flags.orders,
      seed: flags.seed ?? randomSeed(),
      ratePerSecond: flags.rate,
      batchRatePerSecond: flags.batchRate,
      trackingEverySeconds: flags.trackingEvery,
      lifecycleStepMs: flags.lifecycleMs,
      batchLagMs: flags.batchLagMs,
      kills: flags.kills,
      latencyCalls: flags.latencyCalls ?? (flags.orders >= 20 ? 2 : 1),
      latencyMs: flags.latencyMs,
      quota: flags.quota === true,
      operatorFaults: flags.operatorFaults === true,
      tokenFaults: flags.tokenFaults === true,
      loweredLimits: flags.loweredLimits === true,
      disputes: flags.disputes,
      splits: flags.splits,
      gateway: flags.gateway,
      ...(flags.windowSeconds !== undefined && { windowMs: flags.windowSeconds * 1000 }),
      ...(flags.deadlineSeconds !== undefined && { deadlineMs: flags.deadlineSeconds * 1000 }),
      keep: flags.keep === true,
    },
  };
}

function chaosCommand(): Command {
  return new Command('chaos')
    .description('N orders on a real Temporal dev server and the sandbox, under injected faults')
    .requiredOption('--orders <n>', 'how many orders (flows A, B, C in turn)', wholeNumber(1))
    .option(
      '--seed <n>',
      'seed of the fault plan and order numbers (default: random)',
      wholeNumber(0),
    )
    .option('--json', 'end with one line of JSON: the counters and faults by kind')
    .option('--rate <n>', 'the account tier rate, requests/s', wholeNumber(1), d.ratePerSecond)
    .option(
      '--batch-rate <n>',
      'batch query rate, requests/s',
      wholeNumber(1),
      d.batchRatePerSecond,
    )
    .option(
      '--tracking-every <s>',
      'tracking sweep interval',
      wholeNumber(1),
      d.trackingEverySeconds,
    )
    .option('--lifecycle-ms <n>', 'sandbox lifecycle step', wholeNumber(1), d.lifecycleStepMs)
    .option('--batch-lag-ms <n>', 'batch query lag (0 = off)', wholeNumber(0), d.batchLagMs)
    .option('--kills <n>', 'SIGKILLs of the worker', wholeNumber(0), d.kills)
    .option(
      '--latency-calls <n>',
      'calls answered late (default 1, 2 from 20 orders)',
      wholeNumber(0),
    )
    .option('--latency-ms <n>', 'how late', wholeNumber(0), d.latencyMs)
    .option('--quota', 'also exhaust the daily quota once (that order waits for the next UTC day)')
    .option(
      '--operator-faults',
      "also terminate and reset the account's checkout coordinator and supplier session mid-run",
    )
    .option(
      '--token-faults',
      'also refuse token refreshes (1600200) for a window, then the API key, then `account reauth`',
    )
    .option(
      '--lowered-limits',
      'start the dev server with lowered history and signal limits (the JSON shows them)',
    )
    .option(
      '--disputes <n>',
      'disputes opened with a lost create answer',
      wholeNumber(0),
      d.disputes,
    )
    .option(
      '--splits <fraction>',
      'share of orders (with more than one line) the supplier splits, one parcel per line',
      fraction,
      d.splits,
    )
    .option('--no-gateway', 'no gateway: webhooks are not delivered, the sweeper alone follows')
    .option('--window-seconds <n>', 'faults spread over this long', wholeNumber(1))
    .option('--deadline-seconds <n>', 'stop waiting for the orders after this long', wholeNumber(1))
    .option('--keep', 'keep logs and databases even when the run passes');
}
