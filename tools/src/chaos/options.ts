/** The options of `npm run chaos`, parsed (main.ts runs them). */
import { Command, InvalidArgumentError, Option } from 'commander';

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

const d = DEFAULT_CHAOS_OPTIONS;
type Options = Omit<ChaosOptions, 'progress'>;

export interface ChaosArgs {
  options: Options;
  json: boolean;
}

/** A flag, the option it sets, its help and its parser (none: a switch). */
type Flag = [flags: string, key: keyof Options, help: string, parse?: (v: string) => unknown];
const seconds = (min: number) => (v: string) => wholeNumber(min)(v) * 1000;
const FLAGS: Flag[] = [
  ['--rate <n>', 'ratePerSecond', 'the account tier rate, requests/s', wholeNumber(1)],
  ['--batch-rate <n>', 'batchRatePerSecond', 'batch query rate, requests/s', wholeNumber(1)],
  ['--tracking-every <s>', 'trackingEverySeconds', 'tracking sweep interval', wholeNumber(1)],
  ['--lifecycle-ms <n>', 'lifecycleStepMs', 'sandbox lifecycle step', wholeNumber(1)],
  ['--batch-lag-ms <n>', 'batchLagMs', 'batch query lag (0 = off)', wholeNumber(0)],
  ['--kills <n>', 'kills', 'SIGKILLs of the worker', wholeNumber(0)],
  [
    '--latency-calls <n>',
    'latencyCalls',
    'calls answered late (default 1, 2 from 20 orders)',
    wholeNumber(0),
  ],
  ['--latency-ms <n>', 'latencyMs', 'how late', wholeNumber(0)],
  ['--quota', 'quota', 'also exhaust the daily quota once (that order waits for the next UTC day)'],
  [
    '--operator-faults',
    'operatorFaults',
    "also terminate and reset the account's checkout coordinator and supplier session mid-run",
  ],
  [
    '--token-faults',
    'tokenFaults',
    'also refuse token refreshes (1600200) for a window, then the API key, then `account reauth`',
  ],
  [
    '--lowered-limits',
    'loweredLimits',
    'start the dev server with lowered history and signal limits (the JSON shows them)',
  ],
  ['--disputes <n>', 'disputes', 'disputes opened with a lost create answer', wholeNumber(0)],
  [
    '--splits <fraction>',
    'splits',
    'share of orders (with more than one line) the supplier splits, one parcel per line',
    fraction,
  ],
  ['--no-gateway', 'gateway', 'no gateway: webhooks are not delivered, the sweeper alone follows'],
  ['--window-seconds <n>', 'windowMs', 'faults spread over this long', seconds(1)],
  [
    '--deadline-seconds <n>',
    'deadlineMs',
    'stop waiting for the orders after this long',
    seconds(1),
  ],
  ['--keep', 'keep', 'keep logs and databases even when the run passes'],
];

/** The options of `npm run chaos -- <argv>` (user arguments only); the seed drawn when not given. */
export function parseChaosArgs(argv: readonly string[], randomSeed: () => number): ChaosArgs {
  const program = chaosCommand();
  program.parse(argv, { from: 'user' });
  const flags = program.opts<Record<string, unknown>>();
  const orders = flags.orders as number;
  const seed = (flags.seed as number | undefined) ?? randomSeed();
  const options: Options = { orders, seed, ...d, latencyCalls: orders >= 20 ? 2 : 1 };
  for (const [name, key] of FLAGS) {
    const value = flags[new Option(name).attributeName()];
    if (value !== undefined) Object.assign(options, { [key]: value });
  }
  return { json: flags.json === true, options };
}

function chaosCommand(): Command {
  const command = new Command('chaos')
    .description('N orders on a real Temporal dev server and the sandbox, under injected faults')
    .requiredOption('--orders <n>', 'how many orders (flows A, B, C in turn)', wholeNumber(1))
    .option(
      '--seed <n>',
      'seed of the fault plan and order numbers (default: random)',
      wholeNumber(0),
    )
    .option('--json', 'end with one line of JSON: the counters and faults by kind');
  for (const [name, key, help, parse] of FLAGS) {
    const option = new Option(name, help);
    // Numbers show their default in --help (the latency calls' depends on the orders).
    if (parse !== undefined && key !== 'latencyCalls' && key in d)
      option.default(d[key as keyof typeof d]);
    command.addOption(parse === undefined ? option : option.argParser(parse));
  }
  return command;
}
