/**
 * The workers of a queue set (a fleet), for every supplier account of its directory: Workers on
 * one NativeConnection. At start and on every change of the directory they ensure each account's
 * singletons (accounts/singletons.ts).
 *
 * - `orders`: the workflows, the activities that talk to Temporal itself (orchestration, the
 *   webhook inbox's replays), the forwarding of catalogue webhook events upstream, the delivery
 *   of store events (STORE_EVENTS_URL), the token calls of the account's session workflow
 *   (session/supplierSession.ts), which carry no token, and the orders' wait for the token.
 * - `supplier`: every supplier call of the account, at the account's rate
 *   (`maxTaskQueueActivitiesPerSecond`, enforced by the server across every worker process),
 *   payments first (durable/supplierPriority.ts). The batch queries' own, higher limit is paced
 *   in the process (supplier/pacing.ts).
 * - `retiredBatch`: drains the batch queries scheduled on their former queue before the deploy
 *   that merged it into `supplier` (docs/changing-workflows.md), at the batch rate.
 *
 * Any number of processes may run the same set; nothing here is a per-process singleton except
 * the SDK runtime (and its logger).
 */
import { fileURLToPath } from 'node:url';

import { Client } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import {
  NativeConnection,
  Worker,
  type NativeConnectionOptions,
  type WorkflowBundleOption,
} from '@temporalio/worker';

import { catalogueForwardingActivities } from './inbox/catalogueActivities.js';
import { checkoutActivities } from './checkout/startActivities.js';
import {
  DEFAULT_ACCOUNT,
  RATE_TIERS,
  type Account,
  type AccountDirectory,
} from './accounts/contract.js';
import { ensureAccountSingletons, type SingletonOptions } from './accounts/singletons.js';
import { staticAccountDirectory } from './accounts/staticDirectory.js';
import type { AccountRef } from './temporal/accountStart.js';
import { batchActivities, supplierActivities } from './durable/supplierActivities.js';
import { orchestrationActivities } from './tracking/orchestrationActivities.js';
import { storeEventActivities } from './storeEvents/activities.js';
import type { StoreEventsOptions } from './storeEvents/contract.js';
import { supplierSessionActivities } from './session/activities.js';
import { tokenWaitActivities } from './session/tokenWaitActivities.js';
import { inboxActivities } from './inbox/activities.js';
import { WebhookRouter } from './gateway/routing.js';
import { createLogger, type Logger } from './log.js';
import type { SupplierClient } from './supplier/client.js';
import { installRuntimeLogger } from './temporal/runtimeLogger.js';
import { startVisibilityGauges } from './order/gauges.js';
import type { TaskQueues } from './temporal/taskQueues.js';
import { DEFAULT_CHECKOUT_SETTINGS, type CheckoutSettings } from './checkout/contract.js';

/** The workflow code the orders worker bundles when no prebuilt bundle is given. */
export const WORKFLOWS_PATH = fileURLToPath(new URL('./workflows.ts', import.meta.url));

export interface CreateWorkersOptions {
  /** An existing connection (not closed by the workers); otherwise one is opened from `address`. */
  connection?: NativeConnection;
  /** `host:port` of the Temporal frontend, when no `connection` is given. */
  address?: string;
  /** More NativeConnection options (TLS, API key, metadata) when no `connection` is given. */
  connectionOptions?: Omit<NativeConnectionOptions, 'address'>;
  namespace?: string;
  queues: TaskQueues;
  supplier: SupplierClient;
  /** The account's rate: supplier-queue activities per second (default 1). */
  ratePerSecond?: number;
  /**
   * The supplier accounts these workers serve (the registry); absent: the default account only,
   * made from `supplier` and `ratePerSecond`. Read again on every change it announces.
   */
  accounts?: AccountDirectory;
  /**
   * Besides each account's checkout coordinator, the singletons the workers ensure for it: the
   * tracking sweeper (with these settings) and the token session. Absent: neither.
   */
  singletons?: Pick<SingletonOptions, 'trackingSweeper' | 'session'>;
  /** The batch queries' own limit (default 2): what drains the retired batch queue. */
  batchRatePerSecond?: number;
  /**
   * A prebuilt workflow bundle (tests bundle once per file); otherwise `WORKFLOWS_PATH`. Built with
   * the `failureConverterPath` of `dataConverter`, if it has one.
   */
  workflowBundle?: WorkflowBundleOption;
  /** Where product, variant and stock webhook events are forwarded (CATALOGUE_EVENTS_URL). */
  catalogueEventsUrl?: string;
  /** The account's checkout batching (CHECKOUT_* settings); the coordinator takes the latest. */
  checkout?: CheckoutSettings;
  /** How long an order waits on its coordinator before asking (CHECKOUT_ORDER_BOUND_MS). */
  checkoutOrderBoundMs?: number;
  /** Where order and dispute events go (STORE_EVENTS_*); without a url none are sent. */
  storeEvents?: StoreEventsOptions;
  /**
   * How long an order may find no access token before it stops at NEEDS_ATTENTION
   * (NO_TOKEN_ATTENTION_MINUTES; default 10 minutes).
   */
  noTokenAttentionMs?: number;
  /**
   * Payload encoding of the workers and their client: `dataConverterFor(codec)` encrypts
   * (src/temporal/encryption.ts). Default: the SDK's, payloads in clear.
   */
  dataConverter?: DataConverter;
  /** How long in-flight tasks may finish after shutdown is asked (default 10 s). */
  shutdownGraceTime?: string;
  log?: Logger;
}

export interface WorkerSet {
  queues: TaskQueues;
  /** A client on the workers' connection (what the orchestration activities use). */
  client: Client;
  /** Runs the workers until `shutdown()` (or a fatal error of one, which stops all). */
  run(): Promise<void>;
  /** Asks the workers to stop, waits until they did, and closes an owned connection. */
  shutdown(): Promise<void>;
}

export async function createWorkers(opts: CreateWorkersOptions): Promise<WorkerSet> {
  const log = opts.log ?? createLogger('worker');
  installRuntimeLogger();

  const namespace = opts.namespace ?? 'default';
  const owned = opts.connection === undefined;
  const connection =
    opts.connection ??
    (await NativeConnection.connect({ ...opts.connectionOptions, address: opts.address }));
  const { queues, supplier } = opts;
  const ratePerSecond = opts.ratePerSecond ?? 1;
  const batchRatePerSecond = opts.batchRatePerSecond ?? 2;
  const shutdownGraceTime = opts.shutdownGraceTime ?? '10s';
  const checkout = opts.checkout ?? DEFAULT_CHECKOUT_SETTINGS;
  const accounts = opts.accounts ?? staticAccountDirectory([defaultAccount(ratePerSecond)]);
  /** An account as far as the directory knows it now (a removed one: by its id alone). */
  const accountOf = (id: string | undefined): AccountRef =>
    accounts.get(id ?? DEFAULT_ACCOUNT) ?? { id: id ?? DEFAULT_ACCOUNT };

  try {
    const { dataConverter } = opts;
    const client = new Client({ connection, namespace, dataConverter });
    const common = { connection, namespace, shutdownGraceTime, dataConverter } as const;
    const workers = await Promise.all([
      Worker.create({
        ...common,
        taskQueue: queues.orders,
        ...(opts.workflowBundle !== undefined
          ? { workflowBundle: opts.workflowBundle }
          : { workflowsPath: WORKFLOWS_PATH }),
        activities: {
          ...orchestrationActivities(client),
          // The gateway's durable destinations: the inbox's replays, catalogue forwarding.
          ...inboxActivities(
            (account) => new WebhookRouter(client, queues, checkout, accountOf(account)),
          ),
          ...catalogueForwardingActivities({ url: opts.catalogueEventsUrl }),
          ...storeEventActivities(opts.storeEvents),
          ...checkoutActivities(client, queues, checkout, opts.checkoutOrderBoundMs, accountOf),
          // The account's session workflow's token calls: they carry no token.
          ...supplierSessionActivities(supplier.tokenCalls),
          // Orders wait here for the account's token: it sends no supplier request.
          ...tokenWaitActivities(supplier.tokens, {
            ...(opts.noTokenAttentionMs !== undefined && {
              attentionAfterMs: opts.noTokenAttentionMs,
            }),
          }),
        },
      }),
      Worker.create({
        ...common,
        taskQueue: queues.supplier,
        activities: { ...supplierActivities(supplier), ...batchActivities(supplier) },
        maxTaskQueueActivitiesPerSecond: ratePerSecond,
      }),
      // Tasks scheduled on the retired queue before the deploy, and their retries: few, and their
      // calls pass this process's pacing of the account like every other.
      Worker.create({
        ...common,
        taskQueue: queues.retiredBatch,
        activities: batchActivities(supplier),
        maxTaskQueueActivitiesPerSecond: batchRatePerSecond,
      }),
    ]);
    const singletons: SingletonOptions = { queues, checkout, ...opts.singletons };
    for (const ensured of await Promise.all(
      accounts.list().map((a) => ensureAccountSingletons(client, a, singletons)),
    )) {
      log.info(ensured, 'account singletons ensured');
    }
    return workerSet(client, workers, followDirectory(client, accounts, singletons, log));
  } catch (err) {
    if (owned) await connection.close().catch(() => undefined);
    throw err;
  }

  function workerSet(
    client: Client,
    workers: readonly Worker[],
    stopFollowing: () => Promise<void>,
  ): WorkerSet {
    let running: Promise<void> | undefined;

    const stopAll = (): void => {
      for (const w of workers) if (w.getState() === 'RUNNING') w.shutdown();
    };

    const run = (): Promise<void> => {
      running ??= (async () => {
        log.info({ namespace, queues, ratePerSecond, batchRatePerSecond }, 'workers polling');
        // Orders per stage, orders needing a person, the store-events backlog: while they run.
        const gauges = startVisibilityGauges(client, queues.orders, { log });
        const results = await Promise.allSettled(
          workers.map((w) =>
            w.run().catch((err: unknown) => {
              // One worker down means the set is down: a half-running set would look healthy.
              stopAll();
              throw err;
            }),
          ),
        );
        await gauges.stop();
        await stopFollowing();
        if (owned) await connection.close();
        log.info({ queues }, 'workers stopped');
        const failed = results.find((r) => r.status === 'rejected');
        if (failed !== undefined) throw failed.reason;
      })();
      return running;
    };

    return {
      queues,
      client,
      run,
      async shutdown() {
        // A worker can only be stopped once it runs: start a never-run set so it drains at once.
        const done = run();
        stopAll();
        await done;
      },
    };
  }
}

/** The default account of a worker without a registry: the deployment's own, at its rate. */
function defaultAccount(ratePerSecond: number): Account {
  const tier = RATE_TIERS.filter((t) => t <= ratePerSecond).at(-1) ?? RATE_TIERS[0];
  // Its supplier client is the workers' `supplier`: no key is read from here.
  return { id: DEFAULT_ACCOUNT, tier, apiKey: '', intakeTokenSha256: [] };
}

/**
 * Ensures the singletons of each account the directory adds or changes, one change after the
 * other; a failure is logged and tried again with the next change (or the next start). Returns
 * how to stop following (waits for an ensure under way).
 */
function followDirectory(
  client: Client,
  accounts: AccountDirectory,
  singletons: SingletonOptions,
  log: Logger,
): () => Promise<void> {
  const seen = new Map(accounts.list().map((a) => [a.id, a.tier]));
  let chain = Promise.resolve();
  const unsubscribe = accounts.subscribe((now) => {
    const changed = now.filter((a) => seen.get(a.id) !== a.tier);
    // A removed account's singletons drain on their own; forgotten, so a re-added one is ensured.
    for (const id of [...seen.keys()]) if (!now.some((a) => a.id === id)) seen.delete(id);
    for (const a of now) seen.set(a.id, a.tier);
    if (changed.length === 0) return;
    chain = chain.then(async () => {
      const results = await Promise.allSettled(
        changed.map((a) => ensureAccountSingletons(client, a, singletons)),
      );
      results.forEach((r, i) => {
        const account = changed[i]!.id;
        if (r.status === 'fulfilled') log.info(r.value, 'account singletons ensured');
        else {
          seen.delete(account);
          log.error({ account, err: r.reason as unknown }, 'account singletons not ensured');
        }
      });
    });
  });
  return async () => {
    unsubscribe();
    await chain;
  };
}
