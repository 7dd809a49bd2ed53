/**
 * `dropflow worker`: the workers of one supplier account (orders and supplier-api queues, and the
 * retired supplier-api-batch queue until it is empty) against a Temporal server, until
 * SIGINT/SIGTERM, then a graceful drain. Run as many as you like: the account's rate limit lives in
 * its task queue, not in the process.
 */
import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { WorkflowBundle } from '@temporalio/worker';
import type { Command } from 'commander';

import { watchAccountDirectory } from '../../accounts/registry.js';
import pkg from '../../../package.json' with { type: 'json' };
import {
  loadConfig,
  metricsAddress,
  storeEventsOptions,
  supplierTarget,
  workerDeployment,
  type Config,
} from '../../config/environment.js';
import { createLogger, type Logger } from '../../telemetry/log.js';
import { SupplierClient } from '../../supplier/client.js';
import { dataConverterFor } from '../../temporal/encryption.js';
import { installRuntimeLogger } from '../../temporal/runtimeLogger.js';
import { SessionTokenSource } from '../../session/sessionTokens.js';
import { requireSearchAttributes } from '../../temporal/registerSearchAttributes.js';
import { startTracing, tracingOn } from '../../temporal/tracing.js';
import { workerBundle, workerBundlePaths } from '../../temporal/workflowBundle.js';
import { replayOpenWorkflows } from '../../replayCheck.js';
import { refuseRunsOfRetiredCode } from '../frozenRuns.js';
import { defaultBuildId, versionName } from '../../temporal/deployment.js';
import { createWorkers, type WorkerSet } from '../../worker.js';
import { nonNegativeInt, portOption, untilSignal } from '../options.js';
import {
  connectTemporal,
  insecureOption,
  requirePayloadCodec,
  nativeConnectionOptions,
  temporalOptions,
  temporalTarget,
  type TemporalFlags,
  type TemporalTarget,
} from '../temporal.js';
import { webhookRepairOptions } from '../webhookRepair.js';
import { joinWorkerFleet } from '../workerFleet.js';
import { configuredWorkerOptions, workerSizing } from '../../temporal/workerSizing.js';

interface WorkerFlags extends TemporalFlags {
  trackingSweeper: boolean;
  insecure: boolean;
  metricsPort?: number;
  replayCheck?: number;
}

export function register(program: Command): void {
  temporalOptions(
    insecureOption(program.command('worker'))
      .description(
        'run the order workers of one supplier account (SUPPLIER_BASE_URL, or the local sandbox)',
      )
      .option(
        '--metrics-port <n>',
        'Prometheus metrics of the workers on this port, /metrics (env METRICS_PORT, default 9464; 0 = off)',
        portOption,
      )
      .option(
        '--replay-check <n>',
        "before polling, replay the n newest open workflows, the account's singletons and the oldest open run of each type through this code; refuse to start if one breaks (env REPLAY_CHECK_LIMIT, default 50; 0 = off)",
        nonNegativeInt,
      )
      .option(
        '--no-tracking-sweeper',
        "leave the accounts' tracking sweepers as they are (by default every worker ensures each account's runs with this worker's settings)",
      ),
    { queues: true },
  ).action(runWorker);
}

/** `dropflow worker`: the workers of every account of the registry, until a signal stops them. */
async function runWorker(flags: WorkerFlags): Promise<void> {
  const config = loadConfig();
  // First: nothing starts that would store payloads in clear unless told to.
  const codec = await requirePayloadCodec(config, 'worker', flags.insecure);
  const storeEvents = storeEventsOptions(config);
  const log = createLogger('worker');
  log.info({ ...workerSizing(), memoryGiven: process.env.DROPFLOW_MEMORY_GIVEN }, 'sized');
  const metricsPort = flags.metricsPort ?? config.METRICS_PORT;
  // Before any client or bundle is made: they take their interceptors from it.
  const tracing = startTracing({ service: 'dropflow-worker' });
  log.info(tracing === undefined ? 'tracing off (no OTLP endpoint)' : 'tracing on (OTLP)');
  // Before the SDK runtime starts (once it runs, a refusal would leave the process hanging).
  await refuseUnfitNamespace(flags, log);
  // First, before any connection: the runtime is installed once per process.
  installRuntimeLogger(
    undefined,
    metricsPort === 0 ? {} : { metricsAddress: metricsAddress(config, metricsPort) },
  );
  const target = temporalTarget(flags, config);
  if (codec === undefined) log.warn('payloads stored in clear (--insecure)');
  else log.info({ encryptionKeyId: codec.keyId }, 'payloads encrypted');
  const account = supplierTarget(config);
  log.info(
    { host: storeEvents.url === undefined ? undefined : new URL(storeEvents.url).host },
    storeEvents.url === undefined ? 'store events off (no STORE_EVENTS_URL)' : 'store events on',
  );
  const dataConverter = dataConverterFor(codec);
  const { workflowBundle, deployment } = await bundledWorkflows(config, dataConverter, log);
  // The account registry, followed while the worker runs: accounts come and go without a restart.
  const accounts = await watchAccountDirectory(config, log);
  const limit = flags.replayCheck ?? config.REPLAY_CHECK_LIMIT;
  if (limit > 0) await refuseBreakingCode(flags, workflowBundle, limit, log, deployment);
  // The account's one token comes from its session workflow, asked through a client that
  // encodes payloads like the workers.
  const sessionClient = await connectTemporal(flags);
  const fleet = await joinWorkerFleet(
    config,
    {
      client: sessionClient.client,
      namespace: target.namespace,
      supplierQueue: target.queues.supplier,
    },
    log,
  );
  const supplier = new SupplierClient({
    ...account,
    ratePerSecond: config.SUPPLIER_RATE_PER_SECOND,
    batchRatePerSecond: config.SUPPLIER_BATCH_RATE_PER_SECOND,
    fleet: fleet.view,
    tokens: new SessionTokenSource(sessionClient.client, target.queues),
  });
  try {
    const workers = await createWorkers({
      workflowBundle,
      address: target.address,
      connectionOptions: nativeConnectionOptions(target),
      namespace: target.namespace,
      queues: target.queues,
      supplier,
      accounts,
      stores: accounts,
      // Each WooCommerce connection's order sweep (WooCommerce does not retry its webhooks).
      storeSweeps: {},
      ...configuredWorkerOptions(config),
      fleet: fleet.view,
      storeEvents,
      dataConverter,
      ...(deployment !== undefined && { deployment }),
      // Idempotent: every worker ensures each account's coordinator, session and sweeper.
      singletons: singletonsOf(config, flags),
      log,
    });
    await pollUntilStopped(workers, target, deployment, () => fleet.leave(), log);
  } finally {
    fleet.close();
    accounts.close();
    await supplier.close();
    await sessionClient.close();
  }
}

/** The workflow code this worker runs, bundled, and the deployment version it polls as. */
async function bundledWorkflows(
  config: Config,
  dataConverter: ReturnType<typeof dataConverterFor>,
  log: Logger,
): Promise<{ workflowBundle: WorkflowBundle; deployment: WorkerDeploymentVersion | undefined }> {
  const versioned = workerDeployment(config);
  const workflowBundle = await workerBundle(
    workerBundlePaths({
      versioned: versioned !== undefined,
      encrypted: dataConverter !== undefined,
      tracing: tracingOn(),
    }),
  );
  const deployment = versioned && deploymentVersion(versioned, workflowBundle);
  log.info(
    { version: deployment && versionName(deployment) },
    deployment === undefined ? 'unversioned (no WORKER_DEPLOYMENT_NAME)' : 'versioned',
  );
  return { workflowBundle, deployment };
}

/** Idempotent: every worker ensures each account's coordinator, session and sweeper. */
function singletonsOf(config: Config, flags: WorkerFlags) {
  return {
    session: {},
    ...(flags.trackingSweeper && {
      trackingSweeper: {
        everySeconds: config.TRACKING_EVERY_SECONDS,
        staleAfterHours: config.TRACKING_STALE_AFTER_HOURS,
        missingAfterMinutes: config.TRACKING_MISSING_AFTER_MINUTES,
        webhooks: webhookRepairOptions(config),
      },
    }),
  };
}

/** Runs the workers until a signal (then drains them) or a fatal worker error. */
async function pollUntilStopped(
  workers: WorkerSet,
  target: TemporalTarget,
  deployment: WorkerDeploymentVersion | undefined,
  leaveFleet: () => Promise<void>,
  log: Logger,
): Promise<void> {
  const running = workers.run();
  const { orders, supplier: supplierQueue, retiredBatch } = target.queues;
  // Listening before saying so: a stop asked right after the line must find the handler.
  const stopAsked = untilSignal();
  const as = deployment === undefined ? '' : ` as version ${versionName(deployment)}`;
  process.stdout.write(
    `worker: polling ${orders}${as}, ${supplierQueue} (draining ${retiredBatch}) on ${target.address} (namespace ${target.namespace})\n`,
  );
  // A fatal worker error ends `running` first; a signal starts the drain.
  const signal = await Promise.race([stopAsked, running.then(() => undefined)]);
  if (signal !== undefined) {
    log.info({ signal }, 'stopping: finishing in-flight tasks');
    await Promise.all([leaveFleet(), workers.shutdown()]);
  }
}

/**
 * A workflow that upserts a search attribute its namespace lacks stops: the namespace must have
 * all of dropflow's before the worker takes tasks. And no run open on the queue may need frozen
 * code this release removed (src/frozen/sets.ts).
 */
async function refuseUnfitNamespace(flags: WorkerFlags, log: Logger): Promise<void> {
  const temporal = await connectTemporal(flags);
  try {
    await requireSearchAttributes(temporal.client.connection, temporal.target.namespace, log);
    await refuseRunsOfRetiredCode(temporal.client, { taskQueue: temporal.target.queues.orders });
  } finally {
    await temporal.close();
  }
}

/** The deploy gate: open workflows must replay on this code before the worker takes tasks. */
async function refuseBreakingCode(
  flags: WorkerFlags,
  workflowBundle: WorkflowBundle,
  limit: number,
  log: Logger,
  deployment: WorkerDeploymentVersion | undefined,
): Promise<void> {
  const temporal = await connectTemporal(flags);
  try {
    const dataConverter = dataConverterFor(temporal.codec);
    const check = await replayOpenWorkflows(temporal.client, {
      taskQueue: temporal.target.queues.orders,
      workflowBundle,
      limit,
      ...(dataConverter !== undefined && { dataConverter }),
      ...(deployment !== undefined && { deployment }),
    });
    for (const f of check.failures) log.error(f, 'this code cannot replay an open workflow');
    if (check.failures.length > 0) {
      throw new Error(
        `refusing to start: ${check.failures.length} of ${check.checked} open workflows would break on this code (docs/changing-workflows.md)`,
      );
    }
    // Which builds the replayed runs last ran on: the ones this build takes over from.
    log.info(
      { checked: check.checked, versions: check.versions },
      'open workflows replay on this code',
    );
  } finally {
    await temporal.close();
  }
}

/** The version the workers poll as: the build id, when not set, derived from the workflow code. */
function deploymentVersion(
  versioned: NonNullable<ReturnType<typeof workerDeployment>>,
  workflowBundle: WorkflowBundle,
): WorkerDeploymentVersion {
  return {
    deploymentName: versioned.deploymentName,
    buildId: versioned.buildId ?? defaultBuildId(pkg.version, workflowBundle),
  };
}
