/**
 * `dropflow bench orders`: N flow-B orders through a Temporal dev server, the sandbox, the gateway
 * and a worker of the run's own, checkout batching off then on; a table on stdout, with --json a
 * last line `{"off": {...}, "on": {...}}`; progress on stderr. Exits 1 when an order of a phase
 * did not complete.
 */
import { InvalidArgumentError, type Command } from 'commander';

import {
  DEFAULT_ORDERS_BENCH,
  phaseComplete,
  runOrdersBench,
} from '../../../tools/src/bench/ordersBench.js';
import { formatOrdersBench, ordersBenchJson } from '../../../tools/src/bench/ordersReport.js';
import { createLogger } from '../../log.js';
import { nonNegativeInt, positiveNumber } from '../options.js';
import { printLines } from '../output.js';

interface OrdersFlags {
  orders: number;
  rps: number;
  maxBatch?: number;
  quietMs?: number;
  maxWaitMs?: number;
  trackingSeconds: number;
  lifecycleMs: number;
  deadlineSeconds?: number;
  keep?: boolean;
  json?: boolean;
}

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number ≥ 1');
  return n;
}

const d = DEFAULT_ORDERS_BENCH;

export function registerOrders(bench: Command): void {
  bench
    .command('orders')
    .description(
      'orders through Temporal, the sandbox, gateway and worker: checkout batching off, then on',
    )
    .option('--orders <n>', 'flow-B orders per phase, submitted at once', positiveInt, d.orders)
    .option(
      '--rps <r>',
      "requests/s: the sandbox account's general limit and the worker's rate",
      positiveNumber,
      d.ratePerSecond,
    )
    .option(
      '--max-batch <n>',
      "CHECKOUT_MAX_BATCH for the worker (default: the worker's)",
      positiveInt,
    )
    .option(
      '--quiet-ms <n>',
      "CHECKOUT_QUIET_MS for the worker (default: the worker's)",
      nonNegativeInt,
    )
    .option(
      '--max-wait-ms <n>',
      "CHECKOUT_MAX_WAIT_MS for the worker (default: the worker's)",
      nonNegativeInt,
    )
    .option(
      '--tracking-seconds <s>',
      'interval of the tracking sweeps (TRACKING_EVERY_SECONDS)',
      positiveInt,
      d.trackingEverySeconds,
    )
    .option(
      '--lifecycle-ms <n>',
      "the sandbox's step of a paid order towards delivery",
      positiveInt,
      d.lifecycleStepMs,
    )
    .option(
      '--deadline-seconds <s>',
      'per phase, stop waiting for the orders after this long (default: 2 × the unbatched time + 5 min)',
      positiveInt,
    )
    .option('--keep', 'keep the logs and databases even when every order completed')
    .option('--json', 'end with one line of JSON: {"off": {...}, "on": {...}}')
    .action(async (flags: OrdersFlags) => {
      const result = await runOrdersBench({
        orders: flags.orders,
        ratePerSecond: flags.rps,
        batchRatePerSecond: d.batchRatePerSecond,
        trackingEverySeconds: flags.trackingSeconds,
        lifecycleStepMs: flags.lifecycleMs,
        tuning: {
          ...(flags.maxBatch !== undefined && { maxBatch: flags.maxBatch }),
          ...(flags.quietMs !== undefined && { quietMs: flags.quietMs }),
          ...(flags.maxWaitMs !== undefined && { maxWaitMs: flags.maxWaitMs }),
        },
        ...(flags.deadlineSeconds !== undefined && { deadlineMs: flags.deadlineSeconds * 1000 }),
        keep: flags.keep === true,
        log: createLogger('bench'),
        say: (line) => process.stderr.write(`${line}\n`),
      });
      printLines(formatOrdersBench(result));
      if (flags.json === true) process.stdout.write(`${ordersBenchJson(result)}\n`);
      if (!phaseComplete(result.off) || !phaseComplete(result.on)) process.exitCode = 1;
    });
}
