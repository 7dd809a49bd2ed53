/**
 * `dropflow bench`: measurements on this machine, loopback only.
 *
 * - `bench webhooks`: webhook acknowledgement latency (p50/p99) and throughput at a fixed
 *   concurrency, through a real gateway and a real Temporal dev server started for the run, next
 *   to a bare node:http endpoint.
 * - `bench orders` (./benchOrders.ts): orders through the whole stack, checkout batching off and on.
 * - `bench accounts` (./benchAccounts.ts): many supplier accounts on one fleet of workers (`--workers`, `--churn`).
 */
import { InvalidArgumentError, type Command } from 'commander';

import { createLogger } from '../../telemetry/log.js';
import { installRuntimeLogger } from '../../temporal/runtimeLogger.js';
import { loadBenchTools } from '../devtools.js';
import { nonNegativeInt, positiveNumber } from '../options.js';
import { printJson, printLines } from '../output.js';
import { registerAccounts } from './benchAccounts.js';
import { registerOrders } from './benchOrders.js';

interface BenchFlags {
  concurrency: number;
  requests: number;
  maxSeconds: number;
  warmup: number;
  json?: boolean;
}

function boundedInt(max: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1 || n > max) {
      throw new InvalidArgumentError(`must be a whole number from 1 to ${max}`);
    }
    return n;
  };
}

export function register(program: Command): void {
  const bench = program
    .command('bench')
    .description(
      'measurements on this machine: `bench webhooks`, `bench orders`, `bench accounts`',
    );
  bench
    .command('webhooks')
    .description('measure the gateway on loopback against a real Temporal dev server')
    .option('--concurrency <n>', 'requests in flight', boundedInt(256), 32)
    .option('--requests <n>', 'requests per endpoint', boundedInt(100_000), 3_000)
    .option('--max-seconds <s>', 'longest a measured run may take', positiveNumber, 30)
    .option('--warmup <n>', 'unmeasured requests per endpoint first', nonNegativeInt, 300)
    .option('--json', 'print the results as one JSON document')
    .action(async (flags: BenchFlags) => {
      const { formatGatewayBench, runGatewayBench } =
        await loadBenchTools('dropflow bench webhooks');
      const log = createLogger('bench');
      installRuntimeLogger();
      const gateway = await runGatewayBench({
        concurrency: flags.concurrency,
        requests: flags.requests,
        maxMs: flags.maxSeconds * 1000,
        warmup: flags.warmup,
        log,
      });
      if (flags.json === true) printJson({ gateway });
      else printLines(formatGatewayBench(gateway));
    });
  registerOrders(bench);
  registerAccounts(bench);
}
