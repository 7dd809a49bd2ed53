/**
 * Routes the Temporal SDK's logs (worker, workflow and activity context loggers, and the native
 * core's logs) into pino (docs/architecture.md §19). `Runtime.install` may happen once per process
 * and before anything touches the runtime (a NativeConnection, a Worker, a dev server), so every
 * entry point calls `installRuntimeLogger()` first; later calls do nothing.
 */
import type { LogLevel, LogMetadata, Logger as SdkLogger } from '@temporalio/common';
import { makeTelemetryFilterString, Runtime } from '@temporalio/worker';

import { createLogger, type Logger } from '../telemetry/log.js';
import { histogramBuckets } from '../telemetry/metrics.js';
import { useRuntimeMeter } from '../telemetry/runtimeMeter.js';

const PINO_METHOD = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
} as const satisfies Record<LogLevel, string>;

const ACTIVITY_ONLY_NOTICE = 'No workflows registered, not polling for workflow tasks';

/** The SDK's `Logger` interface over a pino logger. */
export class PinoSdkLogger implements SdkLogger {
  constructor(private readonly pino: Logger) {}

  log(level: LogLevel, message: string, meta?: LogMetadata): void {
    // The supplier queues' workers run activities only, on purpose: not worth a warning.
    if (message === ACTIVITY_ONLY_NOTICE) level = 'DEBUG';
    const fields: Record<string, unknown> = {};
    // Symbol keys (the SDK's timestamp) are dropped; an `error` becomes pino's serialised `err`.
    for (const [key, value] of Object.entries(meta ?? {})) {
      fields[key === 'error' && value instanceof Error ? 'err' : key] = value;
    }
    this.pino[PINO_METHOD[level]](fields, message);
  }
  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}

let attempted = false;

/**
 * Installs the Temporal Runtime with a pino logger, once per process. Signal handling is left to
 * dropflow's commands (`shutdownSignals: []`): they stop workers, gateway, sandbox and dev server
 * in order, rather than the SDK stopping workers on its own at the first Ctrl-C.
 *
 * Returns false when another part of the process instantiated the runtime first (its logs then go
 * to the SDK's default logger); it never throws for that.
 */
export interface RuntimeOptions {
  /** `host:port` where the SDK serves its Prometheus metrics (`/metrics`); none when left out. */
  metricsAddress?: string;
}

export function installRuntimeLogger(
  log: Logger = createLogger('temporal'),
  options: RuntimeOptions = {},
): boolean {
  if (attempted) return Runtime.instantiator === 'install';
  attempted = true;
  if (Runtime._instance !== undefined) {
    log.warn(
      'the Temporal runtime was started before its logger was installed: SDK logs bypass pino',
    );
    return false;
  }
  Runtime.install({
    logger: new PinoSdkLogger(log),
    shutdownSignals: [],
    telemetryOptions: {
      logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }) },
      ...(options.metricsAddress !== undefined && {
        metrics: {
          prometheus: {
            bindAddress: options.metricsAddress,
            histogramBucketOverrides: histogramBuckets(),
          },
        },
      }),
    },
  });
  useRuntimeMeter(() => Runtime._instance?.metricMeter);
  return true;
}

/**
 * Stops the runtime of a process that installed it only to export metrics (the gateway). The SDK
 * stops it by itself once its last worker or native connection is gone; without either it would
 * keep the process alive after everything else closed.
 */
export async function shutdownRuntime(): Promise<void> {
  await Runtime._instance?.shutdown();
}
