/**
 * The workers of a queue set (a fleet), for every supplier account of its directory: Workers on
 * one NativeConnection. A task acts for the account of its fairness key (accounts/perAccount.ts):
 * that account's API key, token session and in-process pacer. At start, on every change of the
 * directory and every minute they ensure each account's singletons (src/singletonSupervisor.ts).
 *
 * - `orders`: the workflows, the activities that talk to Temporal itself (orchestration, the
 *   webhook inbox's replays), the forwarding of catalogue webhook events upstream, the delivery
 *   of store events (STORE_EVENTS_URL), the token calls of the account's session workflow
 *   (session/supplierSession.ts), which carry no token, and the orders' wait for the token.
 * - `supplier`: every supplier call of every account, each account at its tier and the queue at
 *   the sum of the tiers (enforced by the server across every worker process:
 *   accounts/supplierBudget.ts), payments first within each account (durable/supplierPriority.ts).
 *   The batch queries' own, higher limit is paced in the process (supplier/pacing.ts).
 * - `retiredBatch`: drains the batch queries scheduled on their former queue before the deploy
 *   that merged it into `supplier` (docs/changing-workflows.md), at the batch rate.
 *
 * Any number of processes may run the same set; nothing here is a per-process singleton except
 * the SDK runtime (and its logger).
 */

import { Client } from '@temporalio/client';
import type { DataConverter, WorkerDeploymentVersion } from '@temporalio/common';
import {
  NativeConnection,
  Worker,
  type ActivitySlotInfo,
  type NativeConnectionOptions,
  type SlotInfo,
  type WorkflowBundleOption,
} from '@temporalio/worker';

import { catalogueForwardingActivities } from './inbox/catalogueActivities.js';
import { checkoutActivities } from './checkout/startActivities.js';
import { ORDER_WORKFLOW } from './order/contract.js';
import {
  DEFAULT_ACCOUNT,
  RATE_TIERS,
  type Account,
  type AccountDirectory,
  type Store,
  type StoreDirectory,
} from './accounts/contract.js';
import type { SingletonOptions } from './singletons.js';
import { superviseSingletons, type SingletonSupervisor } from './singletonSupervisor.js';
import { staticAccountDirectory } from './accounts/staticDirectory.js';
import type { AccountRef } from './accounts/accountStart.js';
import { batchActivities, supplierActivities } from './activities.js';
import { orchestrationActivities } from './tracking/orchestrationActivities.js';
import { tellActivities } from './checkout/tellActivities.js';
import { webhookRepairActivities } from './tracking/webhookActivities.js';
import { storeEventActivities } from './storeEvents/activities.js';
import { storeMappingActivities } from './store/intake/skuActivities.js';
import { storeSweepActivities } from './store/intake/sweepActivities.js';
import { superviseStoreSweeps, type SweepSupervisor } from './store/intake/sweepSupervisor.js';
import type { WooClientOptions } from './store/woocommerce/rest.js';
import { OrderClient } from './client/orderClient.js';
import { storeOrderIntake } from './client/storeIntake.js';
import type { MarginRule } from './terms/margin.js';
import type { StoreEventsOptions } from './terms/storeEventsSettings.js';
import type { StoreLookup } from './storeEvents/storeDelivery.js';
import { supplierSessionActivities } from './session/activities.js';
import { tokenSealFor, type TokenSeal } from './session/tokenSeal.js';
import { tokenWaitActivities, type TokenWaitOptions } from './session/tokenWaitActivities.js';
import { inboxActivities } from './inbox/activities.js';
import { WebhookRouter } from './gateway/routing.js';
import { createLogger, type Logger } from './telemetry/log.js';
import type { SupplierClient } from './supplier/client.js';
import type { FleetView } from './supplier/fleet.js';
import { PerAccount } from './accounts/perAccount.js';
import { accountOfTask } from './accounts/activityAccount.js';
import { accountSupplier } from './session/accountSupplier.js';
import { followSupplierBudget, unsupported } from './accounts/supplierBudget.js';
import { installRuntimeLogger } from './temporal/runtimeLogger.js';
import { startVisibilityGauges } from './visibilityGauges.js';
import type { TaskQueues } from './temporal/taskQueues.js';
import { tracingClientOptions, tracingWorkerOptions } from './temporal/tracing.js';
import { heartbeatWhileRunning } from './temporal/heartbeatWhileRunning.js';
import {
  activitySlots,
  type DrainingSlots,
  ordersQueueTuner,
  supplierQueueTuner,
  workflowSlots,
} from './temporal/pollDrain.js';
import {
  SHARED_WORKFLOW_MODULES,
  VERSIONED_WORKFLOWS_PATH,
  WORKFLOWS_PATH,
  workflowInterceptorModules,
} from './temporal/workflowBundle.js';
import { checkoutOrderBoundMs } from './checkout/contract.js';
import { DEFAULT_CHECKOUT_SETTINGS, type CheckoutSettings } from './terms/checkoutSettings.js';

export interface CreateWorkersOptions {
  /** An existing connection (not closed by the workers); otherwise one is opened from `address`. */
  connection?: NativeConnection;
  /** `host:port` of the Temporal frontend, when no `connection` is given. */
  address?: string;
  /** More NativeConnection options (TLS, API key, metadata) when no `connection` is given. */
  connectionOptions?: Omit<NativeConnectionOptions, 'address'>;
  namespace?: string;
  queues: TaskQueues;
  /** The default account's client (SUPPLIER_API_KEY, or the sandbox's). */
  supplier: SupplierClient;
  /** The default account's rate (tier): its supplier calls per second (default 1). */
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
  singletons?: Pick<SingletonOptions, 'trackingSweeper' | 'session'> & {
    /** How often each account's coordinator and sweeper are looked at (default 60 s). */
    superviseEveryMs?: number;
  };
  /** The batch queries' own limit (default 2): what drains the retired batch queue. */
  batchRatePerSecond?: number;
  /**
   * The fleet this process is one of: the deployment's live roster (temporal/fleetMembership.ts)
   * or a share set by hand (SUPPLIER_FLEET_SHARE). None: the only one.
   */
  fleet?: FleetView;
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
   * The store connections (with their secrets) that the events of store orders are written to
   * (src/storeEvents/storeDelivery.ts); default: the registry's, when `accounts` is the registry.
   * Without them such an order's tracking waits, named.
   */
  stores?: StoreLookup;
  /**
   * The order sweeps of the WooCommerce connections `stores` lists (docs/store-woocommerce.md):
   * the workers start each unless it runs, at start and every `superviseEveryMs` (default a
   * minute). Absent: no sweep is started (those running go on, served by these workers).
   */
  storeSweeps?: { superviseEveryMs?: number; rest?: WooClientOptions };
  /** The margin rule of default-account orders that name none (MARGIN_RULE): swept store orders. */
  marginDefault?: MarginRule;
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
  /**
   * The Worker Deployment Version the orders worker polls as (WORKER_DEPLOYMENT_NAME); a prebuilt
   * `workflowBundle` must then come from VERSIONED_WORKFLOWS_PATH. Default: unversioned.
   */
  deployment?: WorkerDeploymentVersion;
  /** Workflows kept in memory (WORKER_MAX_CACHED_WORKFLOWS); default: the SDK's. */
  maxCachedWorkflows?: number;
  /** Workflow tasks taken at once (WORKER_WORKFLOW_TASK_SLOTS); default: the SDK's. */
  workflowTaskSlots?: number;
  /** Supplier activities run at once (WORKER_ACTIVITY_SLOTS); default: the SDK's. */
  maxConcurrentActivities?: number;
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

/** What the workers hold for one account: the activities that act for it. */
function accountWork(
  supplier: SupplierClient,
  storeEvents: StoreEventsOptions | undefined,
  tokenWait: TokenWaitOptions,
  stores: StoreLookup | undefined,
  seal: TokenSeal | undefined,
) {
  return {
    supplier: {
      ...supplierActivities(supplier),
      ...batchActivities(supplier),
      // The tracking sweeper's webhook repair (docs/webhook-health.md).
      ...webhookRepairActivities(supplier),
    },
    batch: batchActivities(supplier),
    // The account's session workflow's token calls: they carry no token; tokens leave sealed.
    session: supplierSessionActivities(supplier.tokenCalls, seal),
    // Orders wait here for the account's token: it sends no supplier request.
    tokenWait: tokenWaitActivities(supplier.tokens, tokenWait),
    storeEvents: storeEventActivities(storeEvents, stores),
  };
}
type AccountWork = ReturnType<typeof accountWork>;

/** The activities of `group`, each run with the activities of its task's account. */
function forEachAccount<K extends keyof AccountWork>(
  work: PerAccount<AccountWork>,
  group: K,
): AccountWork[K] {
  const names = Object.keys(work.of(DEFAULT_ACCOUNT)[group]);
  type Fn = (...args: unknown[]) => unknown;
  // Async: an unknown account's failure is the activity's, not a throw of the call.
  const run =
    (name: string) =>
    (...args: unknown[]) =>
      Promise.resolve().then(() => (work.current()[group] as Record<string, Fn>)[name]!(...args));
  return Object.fromEntries(names.map((name) => [name, run(name)])) as AccountWork[K];
}

/** An account's own store-events target, or the deployment's. */
function storeEventsOf(account: Account, base: StoreEventsOptions | undefined) {
  if (account.storeEventsUrl === undefined) return base;
  return { ...base, url: account.storeEventsUrl, secret: account.storeEventsSecret };
}

function hasStores(d: AccountDirectory | undefined): d is AccountDirectory & StoreLookup {
  return typeof (d as Partial<StoreLookup> | undefined)?.store === 'function';
}

/** The store connections the workers know (with their secrets), or none. */
function storesOf(s: Setup): StoreLookup | undefined {
  return s.opts.stores ?? (hasStores(s.opts.accounts) ? s.opts.accounts : undefined);
}

/** The sweeps' supervisor, when asked for and the store directory can list its connections. */
function sweepSupervisorOf(s: Setup): SweepSupervisor | undefined {
  const stores = storesOf(s) as Partial<StoreDirectory> | undefined;
  const sweeps = s.opts.storeSweeps;
  if (sweeps === undefined || typeof stores?.stores !== 'function') return undefined;
  const listed = stores as { stores(): readonly Store[]; refresh?(): Promise<void> };
  return superviseStoreSweeps({
    client: s.client,
    queues: s.opts.queues,
    stores: listed,
    accountOf: (id) => s.accounts.get(id) ?? { id },
    ...(sweeps.superviseEveryMs !== undefined && { everyMs: sweeps.superviseEveryMs }),
    log: s.log,
  });
}

/** The directory of a process configured for the default account only. */
const DEFAULT_ONLY: AccountDirectory = {
  get: () => undefined,
  list: () => [],
  subscribe: () => () => undefined,
};

/** What the steps of `createWorkers` share. */
interface Setup {
  opts: CreateWorkersOptions;
  log: Logger;
  namespace: string;
  connection: NativeConnection;
  /** Whether the workers opened the connection (and close it). */
  owned: boolean;
  client: Client;
  ratePerSecond: number;
  batchRatePerSecond: number;
  checkout: CheckoutSettings;
  /** The registry, or the default account only. */
  directory: AccountDirectory;
  /** The accounts as far as they are known: with the default one at its rate when no registry. */
  accounts: AccountDirectory;
}

/** What a started set holds until it stops: undone in reverse if the start fails. */
interface Held {
  work?: PerAccount<AccountWork>;
  budget?: ReturnType<typeof followSupplierBudget>;
  unsubscribe?: () => void;
  singletonsFollow?: (now: readonly Account[]) => void;
  singletonsStop?: () => Promise<void>;
  sweeps?: SweepSupervisor;
}

export async function createWorkers(opts: CreateWorkersOptions): Promise<WorkerSet> {
  installRuntimeLogger();
  const setup = await setUp(opts);
  const held: Held = {};
  try {
    held.work = accountWorkOf(setup);
    held.budget = followSupplierBudget(
      { client: setup.client, namespace: setup.namespace, taskQueue: opts.queues.supplier },
      setup.ratePerSecond,
      setup.directory.list(),
      setup.log,
    );
    // One subscription to the directory, told in order: the accounts' clients (a changed one is
    // made again for its next task), the queue's budget, then the singletons (once ensured).
    const { work, budget } = held;
    held.unsubscribe = setup.directory.subscribe((now) => {
      work.follow();
      budget.follow(now);
      held.singletonsFollow?.(now);
    });
    await budgetApplied(setup, budget);
    const workers = await queueWorkers(setup, work);
    const following = await ensureSingletons(setup);
    held.singletonsFollow = following.follow;
    held.singletonsStop = following.stop;
    held.sweeps = sweepSupervisorOf(setup);
    const sweeps = held.sweeps;
    if (sweeps !== undefined)
      setup.log.info({ sweeps: await sweeps.ensure() }, 'store sweeps ensured');
    const stopFollowing = async (): Promise<void> => {
      held.unsubscribe?.();
      budget.stop();
      await sweeps?.stop();
      await following.stop();
    };
    return workerSet(setup, workers, work, stopFollowing);
  } catch (err) {
    held.unsubscribe?.();
    held.budget?.stop();
    await held.singletonsStop?.();
    await held.sweeps?.stop();
    await held.work?.close();
    if (setup.owned) await setup.connection.close().catch(() => undefined);
    throw err;
  }
}

/** The connection, the client on it and the settings every step reads. */
async function setUp(opts: CreateWorkersOptions): Promise<Setup> {
  const owned = opts.connection === undefined;
  const connection =
    opts.connection ??
    (await NativeConnection.connect({ ...opts.connectionOptions, address: opts.address }));
  const namespace = opts.namespace ?? 'default';
  const { dataConverter } = opts;
  const ratePerSecond = opts.ratePerSecond ?? 1;
  return {
    opts,
    log: opts.log ?? createLogger('worker'),
    namespace,
    connection,
    owned,
    client: new Client({ connection, namespace, dataConverter, ...tracingClientOptions() }),
    ratePerSecond,
    batchRatePerSecond: opts.batchRatePerSecond ?? 2,
    checkout: opts.checkout ?? DEFAULT_CHECKOUT_SETTINGS,
    directory: opts.accounts ?? DEFAULT_ONLY,
    accounts: opts.accounts ?? staticAccountDirectory([defaultAccount(ratePerSecond)]),
  };
}

/** Each account's activities: the default account's from `supplier`, the others' made on use. */
function accountWorkOf(s: Setup): PerAccount<AccountWork> {
  const { opts } = s;
  const tokenWait: TokenWaitOptions =
    opts.noTokenAttentionMs === undefined ? {} : { attentionAfterMs: opts.noTokenAttentionMs };
  // The registry's directory knows the store connections too.
  const stores = storesOf(s);
  const seal = tokenSealFor(opts.dataConverter?.payloadCodecs);
  return new PerAccount(
    s.directory,
    accountWork(opts.supplier, opts.storeEvents, tokenWait, stores, seal),
    (a) => {
      const own = accountSupplier(a, {
        client: s.client,
        queues: opts.queues,
        baseUrl: opts.supplier.baseUrl,
        batchRatePerSecond: s.batchRatePerSecond,
        ...(opts.fleet !== undefined && { fleet: opts.fleet }),
      });
      return {
        value: accountWork(own, storeEventsOf(a, opts.storeEvents), tokenWait, stores, seal),
        close: () => own.close(),
        // A new tier only re-paces: the client, its connections and token source stay.
        retier: (tier) => {
          own.setRate(tier);
        },
      };
    },
  );
}

/** Waits for the server to take the supplier queue's budget (required with a registry). */
async function budgetApplied(
  s: Setup,
  budget: ReturnType<typeof followSupplierBudget>,
): Promise<void> {
  await budget.applied.catch((err: unknown) => {
    // With other accounts, the server's per-account limits are what keeps each to its tier.
    if (s.opts.accounts !== undefined) {
      throw new Error(
        `the Temporal server did not take the supplier queue's budget (task queue config): ${String(err)}`,
        { cause: err },
      );
    }
    s.log.warn(
      { err, unsupported: unsupported(err) },
      "supplier queue budget not set on the server; this worker's own limit stays",
    );
  });
}

/**
 * How long a workflow task may wait on its worker's own (sticky) queue before the server offers it
 * on the orders queue, to any worker (the SDK's default: 10 s). Under a backlog a worker's sticky
 * queue made a small account's tasks wait as long as the backlog's (p50 3.4 and 3.6 s), while the
 * orders queue, where each account's fairness key takes its turn, served them first (3.4 s against
 * 37 s): docs/accounts.md.
 */
const STICKY_QUEUE_WAIT = '3s';

/** The orders, supplier and retired batch queues' workers. */
function queueWorkers(s: Setup, work: PerAccount<AccountWork>): Promise<QueueWorker[]> {
  const { opts } = s;
  const common = {
    connection: s.connection,
    namespace: s.namespace,
    shutdownGraceTime: opts.shutdownGraceTime ?? '10s',
    dataConverter: opts.dataConverter,
    // Traces (docs/tracing.md): nothing when tracing is off.
    ...tracingWorkerOptions(accountOfTask, opts.workflowBundle),
  } as const;
  const supplierQueue = (slots: DrainingSlots<ActivitySlotInfo>) => ({
    interceptors: {
      ...common.interceptors,
      activity: [...(common.interceptors?.activity ?? []), heartbeatWhileRunning],
    },
    tuner: supplierQueueTuner(slots),
  });
  const ordersSlots = workflowSlots(opts.workflowTaskSlots);
  const supplierSlots = activitySlots(opts.maxConcurrentActivities);
  const retiredSlots = activitySlots();
  return Promise.all([
    Worker.create({
      ...common,
      taskQueue: opts.queues.orders,
      stickyQueueScheduleToStartTimeout: STICKY_QUEUE_WAIT,
      ...workflowCode(opts, common.interceptors),
      ...versionedAs(opts.deployment),
      ...(opts.maxCachedWorkflows !== undefined && {
        maxCachedWorkflows: opts.maxCachedWorkflows,
      }),
      tuner: ordersQueueTuner(ordersSlots),
      // One thread, one reused context (the SDK's defaults, kept on purpose): bin/heap.js sizes
      // the process for two V8 isolates, this thread's and the main thread's.
      workflowThreadPoolSize: 1,
      reuseV8Context: true,
      activities: ordersActivities(s, work),
    }).then((worker) => ({ worker, slots: ordersSlots })),
    Worker.create({
      ...common,
      ...supplierQueue(supplierSlots),
      taskQueue: opts.queues.supplier,
      activities: forEachAccount(work, 'supplier'),
      // One account: its rate is the queue's, as before accounts were data. Several: the
      // server's config holds each to its tier and the queue to their sum.
      ...(opts.accounts === undefined && { maxTaskQueueActivitiesPerSecond: s.ratePerSecond }),
    }).then((worker) => ({ worker, slots: supplierSlots })),
    // Tasks scheduled on the retired queue before the deploy, and their retries: few, and their
    // calls pass this process's pacing of the account like every other.
    Worker.create({
      ...common,
      ...supplierQueue(retiredSlots),
      taskQueue: opts.queues.retiredBatch,
      activities: forEachAccount(work, 'batch'),
      maxTaskQueueActivitiesPerSecond: s.batchRatePerSecond,
    }).then((worker) => ({ worker, slots: retiredSlots })),
  ]);
}

/** A queue's worker, and the slots that let it stop polling first. */
interface QueueWorker {
  worker: Worker;
  slots: DrainingSlots<SlotInfo>;
}

/** The prebuilt bundle, or the workflow code to bundle (with its interceptor modules). */
function workflowCode(
  opts: CreateWorkersOptions,
  interceptors: ReturnType<typeof tracingWorkerOptions>['interceptors'],
) {
  if (opts.workflowBundle !== undefined) return { workflowBundle: opts.workflowBundle };
  return {
    workflowsPath: opts.deployment === undefined ? WORKFLOWS_PATH : VERSIONED_WORKFLOWS_PATH,
    bundlerOptions: { preloadModules: SHARED_WORKFLOW_MODULES },
    interceptors: { ...interceptors, workflowModules: workflowInterceptorModules() },
  };
}

/** The orders queue's activities: those that talk to Temporal, and the per-account ones. */
function ordersActivities(s: Setup, work: PerAccount<AccountWork>) {
  const { opts, client, checkout } = s;
  const { queues } = opts;
  /** An account as far as the directory knows it now (a removed one: by its id alone). */
  const accountOf = (id: string | undefined): AccountRef =>
    s.accounts.get(id ?? DEFAULT_ACCOUNT) ?? { id: id ?? DEFAULT_ACCOUNT };
  return {
    ...orchestrationActivities(client),
    ...tellActivities(client),
    ...storeMappingActivities((opts.stores ?? s.accounts) as Partial<StoreDirectory>),
    // The WooCommerce sites' order sweeps hand orders to the store webhook's own intake.
    ...storeSweepActivities({
      stores: storesOf(s),
      intake: storeOrderIntake(
        new OrderClient(client, queues, {
          ...(opts.accounts !== undefined && { accounts: opts.accounts }),
          marginDefault: opts.marginDefault,
          checkoutBoundMs: checkoutOrderBoundMs(checkout, opts.checkoutOrderBoundMs),
        }),
      ),
      client,
      ...(opts.storeSweeps?.rest !== undefined && { rest: opts.storeSweeps.rest }),
    }),
    // The gateway's durable destinations: the inbox's replays, catalogue forwarding.
    ...inboxActivities(
      (account) => new WebhookRouter(client, queues, checkout, accountOf(account)),
    ),
    ...catalogueForwardingActivities({ url: opts.catalogueEventsUrl }),
    ...checkoutActivities(
      client,
      queues,
      ORDER_WORKFLOW,
      checkout,
      opts.checkoutOrderBoundMs,
      accountOf,
      opts.fleet?.size(),
    ),
    ...forEachAccount(work, 'storeEvents'),
    ...forEachAccount(work, 'session'),
    ...forEachAccount(work, 'tokenWait'),
  };
}

/** Ensures each account's singletons now, then keeps them running (src/singletonSupervisor.ts). */
function ensureSingletons(s: Setup): Promise<SingletonSupervisor> {
  const { superviseEveryMs, ...chosen } = s.opts.singletons ?? {};
  const singletons: SingletonOptions = {
    queues: s.opts.queues,
    checkout: s.checkout,
    ...chosen,
    ...(s.opts.fleet !== undefined && { fleetSize: s.opts.fleet.size() }),
  };
  return superviseSingletons(s.client, s.accounts, singletons, s.log, superviseEveryMs);
}

function workerSet(
  s: Setup,
  queueWorkers: readonly QueueWorker[],
  held: PerAccount<AccountWork>,
  stopFollowing: () => Promise<void>,
): WorkerSet {
  const { client, log, namespace } = s;
  const { queues } = s.opts;
  let running: Promise<void> | undefined;
  const workers = queueWorkers.map((q) => q.worker);

  const stop = (w: Worker): void => {
    if (w.getState() === 'RUNNING') w.shutdown();
  };
  const stopAll = (): void => {
    for (const w of workers) stop(w);
  };

  const run = (): Promise<void> => {
    running ??= (async () => {
      const accounts = s.directory.list().map((a) => a.id);
      const { ratePerSecond, batchRatePerSecond } = s;
      log.info(
        { namespace, queues, ratePerSecond, batchRatePerSecond, accounts },
        'workers polling',
      );
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
      await held.close();
      if (s.owned) await s.connection.close();
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
      // Each worker first lets its open polls be answered (temporal/pollDrain.ts).
      await Promise.all(
        queueWorkers.map(async ({ worker, slots }) => {
          if (!(await slots.stopPolling())) {
            const { taskQueue } = worker.options;
            log.info({ taskQueue, open: slots.polling }, 'stopping with quiet polls still open');
          }
          stop(worker);
        }),
      );
      await done;
    },
  };
}

/**
 * The orders worker as a deployment version, or unversioned. Only the orders queue is versioned:
 * the supplier queues stay one queue whatever builds run, so the account's rate limit holds across
 * a rolling deploy; a versioned run's supplier calls go to their unversioned workers.
 */
function versionedAs(deployment: WorkerDeploymentVersion | undefined) {
  if (deployment === undefined) return {};
  return {
    workerDeploymentOptions: {
      useWorkerVersioning: true,
      version: deployment,
      // What a workflow without a declared behaviour gets: the one patching keeps safe.
      defaultVersioningBehavior: 'AUTO_UPGRADE',
    },
  } as const;
}

/** The default account of a worker without a registry: the deployment's own, at its rate. */
function defaultAccount(ratePerSecond: number): Account {
  const tier = RATE_TIERS.filter((t) => t <= ratePerSecond).at(-1) ?? RATE_TIERS[0];
  // Its supplier client is the workers' `supplier`: no key is read from here.
  return { id: DEFAULT_ACCOUNT, tier, apiKey: '', intakeTokenSha256: [] };
}
