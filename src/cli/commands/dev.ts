/**
 * `dropflow dev` (and `npm start`): everything on embedded defaults — a Temporal dev server with
 * its UI and a database under the data directory, the sandbox supplier with an automatic order
 * lifecycle, the workers, and the gateway, registered as the sandbox account's webhook callback
 * for every topic so sandbox pushes reach the workflows. With SUPPLIER_BASE_URL it runs against
 * that supplier instead: no sandbox, and no webhook registration there. Payloads are encrypted: with
 * DROPFLOW_ENCRYPTION_KEY, or a key made once and kept in the data directory; the UI decodes them
 * through the gateway's codec routes. Beside the sandbox, a Shopify store double connected as store
 * `dev-shop` (../devStore.ts; `--no-store`: none), so the store loop runs locally too. Prints the
 * URLs; Ctrl-C stops it all.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Client } from '@temporalio/client';
import type { Command } from 'commander';
import { watchAccountDirectory } from '../../accounts/registry.js';
import {
  checkoutSettings,
  intakeLimits,
  loadConfig,
  storeEventsOptions,
  type Config,
} from '../../config/environment.js';
import type { StoreEventsOptions } from '../../terms/storeEventsSettings.js';
import { callbackUrlFor, enableWebhooks } from '../../gateway/registration.js';
import { startGateway } from '../../gateway/server.js';
import { createLogger, type Logger } from '../../telemetry/log.js';
import { SupplierClient } from '../../supplier/client.js';
import { startDevServer, type DevServer } from '../../temporal/devServer.js';
import { dataConverterFor, EncryptionCodec } from '../../temporal/encryption.js';
import { DEV_KEY_FILE, devKeyRing, keyRingFromConfig } from '../../temporal/encryptionKeys.js';
import { installRuntimeLogger } from '../../temporal/runtimeLogger.js';
import { SessionTokenSource } from '../../session/sessionTokens.js';
import { taskQueues } from '../../temporal/taskQueues.js';
import { configuredWorkerOptions } from '../../temporal/workerSizing.js';
import { startTracing } from '../../temporal/tracing.js';
import { ensureTrackingSweeper, type EnsuredSweeper } from '../../tracking/sweeperStart.js';
import { createWorkers } from '../../worker.js';
import { devBanner } from '../devBanner.js';
import { writeDevState, type DevState } from '../devState.js';
import { loadSandboxTools } from '../devtools.js';
import { devStoreBanner, DEV_STORE_PORT, startDevStore } from '../devStore.js';
import { devSupplier, shownSupplierUrl, type DevSupplier } from '../devSupplier.js';
import { nonNegativeInt, portOption, positiveNumber, untilSignal } from '../options.js';
import { webhookRepairOptions } from '../webhookRepair.js';

interface DevFlags {
  temporalPort?: number;
  uiPort?: number;
  sandboxPort?: number;
  gatewayPort?: number;
  metricsPort?: number;
  dataDir?: string;
  lifecycleMs: number;
  trackingEvery: number;
  /** Left out: the sandbox's default. */
  refreshesPerMinute?: number;
  /** false with --no-store. */
  store: boolean;
  storePort?: number;
}

export function register(program: Command): void {
  program
    .command('dev')
    .description('run everything locally: Temporal dev server with UI, sandbox, workers, gateway')
    .option(
      '--temporal-port <n>',
      'Temporal frontend port (env TEMPORAL_PORT, default 7233)',
      portOption,
    )
    .option('--ui-port <n>', 'Temporal UI port (env TEMPORAL_UI_PORT, default 8233)', portOption)
    .option('--sandbox-port <n>', 'sandbox port (env SANDBOX_PORT, default 8787)', portOption)
    .option('--gateway-port <n>', 'gateway port (env GATEWAY_PORT, default 8080)', portOption)
    .option(
      '--metrics-port <n>',
      'Prometheus metrics of the workers and the gateway, /metrics (env METRICS_PORT, default 9464; 0 = off)',
      portOption,
    )
    .option('--data-dir <dir>', 'state directory (env DROPFLOW_DATA_DIR, default .dropflow)')
    .option(
      '--lifecycle-ms <n>',
      'ms between automatic steps of paid sandbox orders',
      nonNegativeInt,
      5_000,
    )
    .option(
      '--refreshes-per-minute <n>',
      "the sandbox's refreshAccessToken limit per account (0 = no limit)",
      nonNegativeInt,
    )
    .option(
      '--store-port <n>',
      `the Shopify store double's port (default ${DEV_STORE_PORT}; 0 = any free port)`,
      portOption,
    )
    .option('--no-store', 'start no store double (and leave the store connections as they are)')
    .option(
      '--tracking-every <s>',
      'seconds between tracking sweeps of open orders',
      positiveNumber,
      10,
    )
    .action(runDev);
}

/** What has started, stopped again in reverse if a later part cannot start (a port in use). */
class StartedParts {
  private readonly stops: (() => Promise<void>)[] = [];

  add(stop: () => Promise<void>): void {
    this.stops.push(stop);
  }

  /** Stops what started, then rethrows: the process would otherwise stay up and say nothing. */
  readonly undo = async (err: unknown): Promise<never> => {
    for (const stop of this.stops.reverse()) await stop().catch(() => undefined);
    throw err;
  };
}

async function runDev(flags: DevFlags): Promise<void> {
  const config = loadConfig();
  const storeEvents = storeEventsOptions(config);
  const log = createLogger('dev');
  // Before any client or worker is made: they take their interceptors from it.
  const tracing = startTracing({ service: 'dropflow-dev' });
  log.info(tracing === undefined ? 'tracing off (no OTLP endpoint)' : 'tracing on (OTLP)');
  // The sandbox, unless SUPPLIER_BASE_URL names the supplier (as for `dropflow worker`). It is
  // one of the dev tools, loaded before anything starts: the worker image has none.
  const target = devSupplier(config, flags.sandboxPort);
  const sandboxTools =
    target.kind === 'sandbox' ? await loadSandboxTools('dropflow dev') : undefined;
  // Before the dev server: it is the first user of the SDK runtime. Workers and gateway share
  // this process, so one /metrics serves both.
  const metricsPort = flags.metricsPort ?? config.METRICS_PORT;
  installRuntimeLogger(
    undefined,
    metricsPort === 0 ? {} : { metricsAddress: `127.0.0.1:${metricsPort}` },
  );
  const dataDir = resolve(flags.dataDir ?? config.DROPFLOW_DATA_DIR);
  await mkdir(dataDir, { recursive: true });
  const encryption = await devEncryption(config, dataDir);
  // The UI decodes through the gateway, whose port must be known before the UI starts.
  const gatewayPort = flags.gatewayPort ?? config.GATEWAY_PORT;
  const codecEndpoint = gatewayPort === 0 ? undefined : `http://127.0.0.1:${gatewayPort}/codec`;
  const temporal = await startDevTemporal(flags, config, log, dataDir, codecEndpoint);
  const parts = new StartedParts();
  parts.add(() => temporal.close());

  const side = await startSupplierSide(flags, config, target, sandboxTools, dataDir, parts);
  const fleet = await startDevWorkers({
    config,
    storeEvents,
    log,
    temporal,
    codec: encryption.codec,
    side,
    target,
    parts,
  });
  const gateway = await startDevGateway(
    config,
    temporal,
    encryption.codec,
    fleet,
    gatewayPort,
  ).catch(parts.undo);
  parts.add(() => gateway.close());
  if (side.devStore?.ok === true) side.devStore.store.connect(gateway.url);
  const webhooks = await devWebhooks(log, side, fleet.supplier, gateway);
  const trackingEvery = Math.max(1, Math.round(flags.trackingEvery));
  const sweeper = await devSweeper(config, fleet, side, gateway.url, trackingEvery).catch(
    parts.undo,
  );

  const removeState = await writeDevState(
    dataDir,
    devState(config, temporal, side, gateway.url, fleet.intakeToken, metricsPort),
  ).catch(parts.undo);

  // Listening before saying so: a stop asked right after the banner must find the handler.
  const stopAsked = untilSignal();
  process.stdout.write(
    devBanner({
      config,
      dataDir,
      temporal,
      encryption,
      codecEndpoint,
      gateway: gateway,
      intakeToken: fleet.intakeToken,
      sandboxUrl: side.sandbox?.url,
      supplierUrl: side.supplierUrl,
      queues: fleet.queues,
      sweeperId: sweeper.workflowId,
      trackingEvery,
      metricsPort,
      webhooks,
      storeEventsUrl: storeEvents.url,
      store: side.storeBanner,
    }),
  );

  // Until Ctrl-C, or until the workers stop by themselves (a fatal error).
  await Promise.race([stopAsked, fleet.running]).catch((err: unknown) => {
    log.error({ err }, 'the workers stopped');
  });
  log.info('stopping');
  await stopDev(removeState, gateway, fleet, side, temporal);
}

/** Stops every part, the gateway first (no new work) and the dev server last. */
async function stopDev(
  removeState: () => Promise<void>,
  gateway: { close: () => Promise<void> },
  fleet: DevFleet,
  side: SupplierSide,
  temporal: DevServer,
): Promise<void> {
  try {
    await removeState();
    await gateway.close();
    await fleet.workers.shutdown();
  } finally {
    fleet.accounts.close();
    await fleet.supplier.close();
    if (side.devStore?.ok === true) await side.devStore.store.close();
    await side.sandbox?.close();
    await temporal.close();
  }
}

/** The Temporal dev server and its UI, on the data directory's database. */
function startDevTemporal(
  flags: DevFlags,
  config: Config,
  log: Logger,
  dataDir: string,
  codecEndpoint: string | undefined,
): Promise<DevServer> {
  return startDevServer({
    log,
    ui: true,
    port: flags.temporalPort ?? config.TEMPORAL_PORT,
    uiPort: flags.uiPort ?? config.TEMPORAL_UI_PORT,
    dbFilename: `${dataDir}/temporal.db`,
    extraArgs: [
      // The CLI's own banner (its random metrics port among it) would stand beside ours.
      '--output',
      'none',
      ...(codecEndpoint === undefined ? [] : ['--ui-codec-endpoint', codecEndpoint]),
    ],
  });
}

/** One sweeper per supplier account; idempotent, so every start may call it. */
function devSweeper(
  config: Config,
  fleet: DevFleet,
  side: SupplierSide,
  gatewayUrl: string,
  everySeconds: number,
): Promise<EnsuredSweeper> {
  return ensureTrackingSweeper(fleet.workers.client, {
    queues: fleet.queues,
    everySeconds,
    staleAfterHours: config.TRACKING_STALE_AFTER_HOURS,
    missingAfterMinutes: config.TRACKING_MISSING_AFTER_MINUTES,
    // The sandbox pushes to the local gateway; a remote supplier to WEBHOOK_BASE_URL.
    webhooks: webhookRepairOptions(config, side.sandbox === undefined ? undefined : { gatewayUrl }),
  });
}

/** Where this dev is, for the other commands run on the same data directory. */
function devState(
  config: Config,
  temporal: DevServer,
  side: SupplierSide,
  gatewayUrl: string,
  intakeToken: string,
  metricsPort: number,
): DevState {
  return {
    pid: process.pid,
    startedAt: new Date().toISOString(),
    temporal: {
      address: temporal.address,
      namespace: temporal.namespace,
      taskQueuePrefix: config.TEMPORAL_TASK_QUEUE_PREFIX,
    },
    ports: {
      temporal: portOf(`tcp://${temporal.address}`)!,
      ui: portOf(temporal.uiUrl),
      sandbox: portOf(side.sandbox?.url),
      gateway: portOf(gatewayUrl)!,
      metrics: metricsPort,
    },
    urls: {
      ...(temporal.uiUrl !== undefined && { temporalUi: temporal.uiUrl }),
      gateway: gatewayUrl,
      supplier: shownSupplierUrl(side.supplierUrl),
    },
    intakeToken,
  };
}

/** Payload encryption: the configured key, or the dev key (made once, kept with the state). */
async function devEncryption(
  config: Config,
  dataDir: string,
): Promise<{ codec: EncryptionCodec; keySource: string }> {
  const configuredKeys = keyRingFromConfig(config);
  const codec = new EncryptionCodec(
    configuredKeys ?? (await devKeyRing(dataDir, { create: true }))!,
  );
  const keySource =
    configuredKeys === undefined ? `${dataDir}/${DEV_KEY_FILE}` : 'DROPFLOW_ENCRYPTION_KEY';
  return { codec, keySource };
}

type DevTemporal = Awaited<ReturnType<typeof startDevServer>>;
type SandboxTools = Awaited<ReturnType<typeof loadSandboxTools>>;

/** The sandbox (unless the supplier is remote) and, beside it, the store double. */
async function startSupplierSide(
  flags: DevFlags,
  config: Config,
  target: DevSupplier,
  sandboxTools: SandboxTools | undefined,
  dataDir: string,
  parts: StartedParts,
) {
  const sandbox =
    target.kind === 'sandbox' && sandboxTools !== undefined
      ? await sandboxTools
          .startSandbox({
            log: createLogger('sandbox'),
            port: target.port,
            dataDir,
            apiKey: target.apiKey,
            lifecycleStepMs: flags.lifecycleMs,
            refreshesPerMinute: flags.refreshesPerMinute,
            allowLocalWebhooks: true,
          })
          .catch(parts.undo)
      : undefined;
  if (sandbox !== undefined) parts.add(() => sandbox.close());
  const supplierUrl = sandbox?.url ?? (target.kind === 'remote' ? target.baseUrl : '');
  const registryConfig = { ...config, DROPFLOW_DATA_DIR: dataDir };
  // A store double beside the sandbox only: a real supplier never gets its made-up orders.
  const devStore =
    sandbox !== undefined && flags.store
      ? await startDevStore(registryConfig, flags.storePort ?? DEV_STORE_PORT).catch(parts.undo)
      : undefined;
  if (devStore?.ok === true) parts.add(() => devStore.store.close());
  const storeBanner = devStoreBanner(
    devStore,
    sandbox === undefined ? 'no sandbox: no made-up order goes to a real supplier' : '--no-store',
  );
  return { sandbox, supplierUrl, registryConfig, devStore, storeBanner };
}
type SupplierSide = Awaited<ReturnType<typeof startSupplierSide>>;

/** The workers of the supplier account, in this process, on the default task queues. */
async function startDevWorkers(o: {
  config: Config;
  storeEvents: StoreEventsOptions;
  log: Logger;
  temporal: DevTemporal;
  codec: EncryptionCodec;
  side: SupplierSide;
  target: DevSupplier;
  parts: StartedParts;
}) {
  const { config, temporal, codec, side, parts } = o;
  const queues = taskQueues(config.TEMPORAL_TASK_QUEUE_PREFIX);
  // Workers, gateway and webhook registration share the account's one token (its session).
  const sessionClient = new Client({
    connection: temporal.env.nativeConnection,
    namespace: temporal.namespace,
    dataConverter: dataConverterFor(codec),
  });
  const supplier = new SupplierClient({
    baseUrl: side.supplierUrl,
    apiKey: o.target.apiKey,
    ratePerSecond: config.SUPPLIER_RATE_PER_SECOND,
    batchRatePerSecond: config.SUPPLIER_BATCH_RATE_PER_SECOND,
    tokens: new SessionTokenSource(sessionClient, queues),
  });
  parts.add(() => supplier.close());
  // The account registry in the data directory (or ACCOUNTS_FILE), followed while dev runs.
  const accounts = await watchAccountDirectory(side.registryConfig, o.log).catch(parts.undo);
  parts.add(() => {
    accounts.close();
    return Promise.resolve();
  });
  const workers = await createWorkers({
    connection: temporal.env.nativeConnection,
    namespace: temporal.namespace,
    queues,
    supplier,
    accounts,
    stores: accounts,
    ...configuredWorkerOptions(config),
    storeEvents: o.storeEvents,
    dataConverter: dataConverterFor(codec),
    log: createLogger('worker'),
  }).catch(parts.undo);
  parts.add(() => workers.shutdown());
  const running = workers.run();
  // Local only; the intake token is GATEWAY_TOKEN, or a fresh one printed in the banner.
  const intakeToken = config.GATEWAY_TOKEN ?? randomBytes(18).toString('base64url');
  return { queues, supplier, accounts, workers, running, intakeToken };
}
type DevFleet = Awaited<ReturnType<typeof startDevWorkers>>;

/** The gateway (docs/architecture.md §16), on loopback; the UI decodes through its codec. */
function startDevGateway(
  config: Config,
  temporal: DevTemporal,
  codec: EncryptionCodec,
  fleet: DevFleet,
  port: number,
) {
  return startGateway({
    temporalClient: fleet.workers.client,
    queues: fleet.queues,
    openId: () => fleet.supplier.tokens.openId(),
    checkout: checkoutSettings(config),
    marginDefault: config.MARGIN_RULE,
    checkoutOrderBoundMs: config.CHECKOUT_ORDER_BOUND_MS,
    intakeLimits: intakeLimits(config),
    intakeToken: fleet.intakeToken,
    accounts: fleet.accounts,
    stores: fleet.accounts,
    log: createLogger('gateway'),
    port,
    host: '127.0.0.1',
    // The UI calls from the browser on its own origin; it cannot send a bearer token here.
    codec: {
      codec,
      corsOrigins: [...uiOrigins(temporal.uiUrl), ...(config.CODEC_CORS_ORIGIN ?? [])],
    },
  });
}
type DevGateway = Awaited<ReturnType<typeof startGateway>>;

/**
 * The sandbox accepts local callbacks (allowLocalWebhooks): it pushes every topic to the gateway.
 * A remote supplier pushes to public HTTPS only, and its callback is the operator's to set.
 */
async function devWebhooks(
  log: Logger,
  side: SupplierSide,
  supplier: SupplierClient,
  gateway: DevGateway,
): Promise<string> {
  if (side.sandbox === undefined) {
    return (
      'not registered at a remote supplier: expose the gateway on public HTTPS and run ' +
      '`npx dropflow webhooks register --base-url https://<public host>`; the tracking sweep follows the orders meanwhile'
    );
  }
  return enableWebhooks(supplier, callbackUrlFor(gateway.url, { allowLocal: true })).then(
    () => `every topic pushed to ${gateway.webhookUrl}`,
    (err: unknown) => {
      log.warn({ err }, 'registering the gateway as the webhook callback failed');
      return 'not registered (see the log); the tracking sweep still follows the orders';
    },
  );
}

function portOf(url: string | undefined): number | undefined {
  if (url === undefined) return undefined;
  const port = new URL(url).port;
  return port === '' ? undefined : Number(port);
}

/** The UI's origins: the browser may name the loopback host either way. */
function uiOrigins(uiUrl: string | undefined): string[] {
  if (uiUrl === undefined) return [];
  const { port, protocol } = new URL(uiUrl);
  return [`${protocol}//localhost:${port}`, `${protocol}//127.0.0.1:${port}`];
}
