/**
 * `dropflow worker`: the workers of one supplier account (orders, supplier-api, supplier-api-batch
 * queues) against a Temporal server, until SIGINT/SIGTERM, then a graceful drain. Run as many as
 * you like: rate limits live in the task queues, not in the process.
 */
import type { Command } from 'commander';

import { loadConfig, supplierTarget } from '../../config.js';
import { createLogger } from '../../log.js';
import { SupplierClient } from '../../supplier/client.js';
import { dataConverterFor } from '../../temporal/encryption.js';
import { installRuntimeLogger } from '../../temporal/runtimeLogger.js';
import { queuePrefix } from '../../temporal/taskQueues.js';
import { ensureTrackingSchedule } from '../../temporal/trackingSchedule.js';
import { createWorkers } from '../../worker.js';
import { portOption, untilSignal } from '../options.js';
import {
  cliPayloadCodec,
  nativeConnectionOptions,
  temporalOptions,
  temporalTarget,
  type TemporalFlags,
} from '../temporal.js';

interface WorkerFlags extends TemporalFlags {
  trackingSchedule: boolean;
  metricsPort?: number;
}

export function register(program: Command): void {
  temporalOptions(
    program
      .command('worker')
      .description(
        'run the order workers of one supplier account (SUPPLIER_BASE_URL, or the local sandbox)',
      )
      .option(
        '--metrics-port <n>',
        'Prometheus metrics of the workers on this port, /metrics (env METRICS_PORT, default 9464; 0 = off)',
        portOption,
      )
      .option(
        '--no-tracking-schedule',
        "leave the account's tracking-sweep schedule as it is (by default every worker ensures it)",
      ),
    { queues: true },
  ).action(async (flags: WorkerFlags) => {
    const config = loadConfig();
    const log = createLogger('worker');
    const metricsPort = flags.metricsPort ?? config.METRICS_PORT;
    // First, before any connection: the runtime is installed once per process.
    installRuntimeLogger(
      undefined,
      metricsPort === 0 ? {} : { metricsAddress: `0.0.0.0:${metricsPort}` },
    );
    const target = temporalTarget(flags, config);
    const codec = await cliPayloadCodec(config);
    log.info(
      { encryptionKeyId: codec?.keyId },
      codec === undefined ? 'payloads stored in clear' : 'payloads encrypted',
    );
    const supplier = new SupplierClient({
      ...supplierTarget(config),
      ratePerSecond: config.SUPPLIER_RATE_PER_SECOND,
      batchRatePerSecond: config.SUPPLIER_BATCH_RATE_PER_SECOND,
    });
    try {
      const workers = await createWorkers({
        address: target.address,
        connectionOptions: nativeConnectionOptions(target),
        namespace: target.namespace,
        queues: target.queues,
        supplier,
        ratePerSecond: config.SUPPLIER_RATE_PER_SECOND,
        batchRatePerSecond: config.SUPPLIER_BATCH_RATE_PER_SECOND,
        catalogueEventsUrl: config.CATALOGUE_EVENTS_URL,
        dataConverter: dataConverterFor(codec),
        log,
      });
      const running = workers.run();
      if (flags.trackingSchedule) {
        // Idempotent: every worker of the account may ensure the one schedule at start.
        const { scheduleId } = await ensureTrackingSchedule(workers.client, {
          queues: target.queues,
          everySeconds: config.TRACKING_EVERY_SECONDS,
          accountLabel: queuePrefix(target.queues),
        });
        log.info(
          { scheduleId, everySeconds: config.TRACKING_EVERY_SECONDS },
          'tracking schedule ensured',
        );
      }
      const { orders, supplier: supplierQueue, batch } = target.queues;
      process.stdout.write(
        `worker: polling ${orders}, ${supplierQueue}, ${batch} on ${target.address} (namespace ${target.namespace})\n`,
      );
      // A fatal worker error ends `running` first; a signal starts the drain.
      const signal = await Promise.race([untilSignal(), running.then(() => undefined)]);
      if (signal !== undefined) {
        log.info({ signal }, 'stopping: finishing in-flight tasks');
        await workers.shutdown();
      }
    } finally {
      await supplier.close();
    }
  });
}
