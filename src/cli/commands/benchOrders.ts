/**
 * `dropflow bench orders`: N flow-B orders through a Temporal dev server, the sandbox, the gateway
 * and a worker of the run's own, checkout batching off then on; a table on stdout, with --json a
 * last line `{"off": {...}, "on": {...}}`; progress on stderr. Exits 1 when an order of a phase
 * did not complete. With `--store shopify|woocommerce` the orders come from a store double's
 * webhooks and the report adds the store's figures.
 */
import { Option, type Command } from 'commander';

import { createLogger } from '../../telemetry/log.js';
import { loadBenchTools } from '../devtools.js';
import { nonNegativeInt, positiveInt, positiveNumber } from '../options.js';
import { printLines } from '../output.js';

/** Left out: the bench's defaults (tools/src/bench/ordersBench.ts DEFAULT_ORDERS_BENCH). */
interface OrdersFlags {
  orders?: number;
  rps?: number;
  maxBatch?: number;
  quietMs?: number;
  maxWaitMs?: number;
  trackingSeconds?: number;
  lifecycleMs?: number;
  deadlineSeconds?: number;
  store?: 'shopify' | 'woocommerce';
  keep?: boolean;
  json?: boolean;
}

export function registerOrders(bench: Command): void {
  bench
    .command('orders')
    .description(
      'orders through Temporal, the sandbox, gateway and worker: checkout batching off, then on',
    )
    .option('--orders <n>', 'flow-B orders per phase, submitted at once', positiveInt)
    .option(
      '--rps <r>',
      "requests/s: the sandbox account's general limit and the worker's rate",
      positiveNumber,
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
    )
    .option(
      '--lifecycle-ms <n>',
      "the sandbox's step of a paid order towards delivery",
      positiveInt,
    )
    .option(
      '--deadline-seconds <s>',
      'per phase, stop waiting for the orders after this long (default: 2 × the unbatched time + 5 min)',
      positiveInt,
    )
    .addOption(
      new Option(
        '--store <platform>',
        'orders arrive as webhooks of a store double of this platform, and tracking goes back to it',
      ).choices(['shopify', 'woocommerce']),
    )
    .option('--keep', 'keep the logs and databases even when every order completed')
    .option('--json', 'end with one line of JSON: {"off": {...}, "on": {...}}')
    .action(async (flags: OrdersFlags) => {
      const { DEFAULT_ORDERS_BENCH: d, ...bench } = await loadBenchTools('dropflow bench orders');
      const result = await bench.runOrdersBench({
        orders: flags.orders ?? d.orders,
        ratePerSecond: flags.rps ?? d.ratePerSecond,
        batchRatePerSecond: d.batchRatePerSecond,
        trackingEverySeconds: flags.trackingSeconds ?? d.trackingEverySeconds,
        lifecycleStepMs: flags.lifecycleMs ?? d.lifecycleStepMs,
        tuning: {
          ...(flags.maxBatch !== undefined && { maxBatch: flags.maxBatch }),
          ...(flags.quietMs !== undefined && { quietMs: flags.quietMs }),
          ...(flags.maxWaitMs !== undefined && { maxWaitMs: flags.maxWaitMs }),
        },
        ...(flags.deadlineSeconds !== undefined && { deadlineMs: flags.deadlineSeconds * 1000 }),
        ...(flags.store !== undefined && { store: flags.store }),
        keep: flags.keep === true,
        log: createLogger('bench'),
        say: (line) => process.stderr.write(`${line}\n`),
      });
      printLines(bench.formatOrdersBench(result));
      if (flags.json === true) process.stdout.write(`${bench.ordersBenchJson(result)}\n`);
      if (!bench.phaseComplete(result.off) || !bench.phaseComplete(result.on)) {
        process.exitCode = 1;
      }
    });
}
