/**
 * Running real order workflows in a test file: one worker set on this file's own queues (so its
 * rate limits and sweeps touch only its orders), one sandbox account, workflows bundled once.
 */
import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, inject } from 'vitest';
import {
  ORDER_WORKFLOW,
  orderWorkflowId,
  resumeUpdate,
  statusQuery,
  type OrderStatus,
  type Stage,
} from '../../src/order/contract.js';
import { parseOrder, type OrderInput } from '../../src/order/orderInput.js';
import type { StoreEventsOptions } from '../../src/terms/storeEventsSettings.js';
import { SupplierClient } from '../../src/supplier/client.js';
import {
  dataConverterFor,
  EncryptionCodec,
  FAILURE_CONVERTER_PATH,
  type EncryptionKey,
} from '../../src/temporal/encryption.js';
import { taskQueues, type TaskQueues } from '../../src/temporal/taskQueues.js';
import { tracingClientOptions } from '../../src/temporal/tracing.js';
import {
  workflowBundleOptions,
  VERSIONED_WORKFLOWS_PATH,
  WORKFLOWS_PATH,
} from '../../src/temporal/workflowBundle.js';
import { createWorkers, type CreateWorkersOptions, type WorkerSet } from '../../src/worker.js';
import { CHECKOUT_BOUND_MEMO } from '../../src/checkout/contract.js';
import {
  DEFAULT_CHECKOUT_SETTINGS,
  type CheckoutSettings,
} from '../../src/terms/checkoutSettings.js';
import type { trackingSweep } from '../../src/tracking/trackingSweep.js';
import { sharedWorkflowBundle } from './bundles.js';
import { eventually } from './eventually.js';
import { madeLater } from './madeLater.js';
import { nameScenario, recordHistories } from './histories.js';
import { newSandboxAccount, type TestAccount } from './sandbox.js';

export interface OrderHarness {
  account: TestAccount;
  queues: TaskQueues;
  client: Client;
  /** The payload codec of the workers and `client`, with `encryptionKey`. */
  codec: EncryptionCodec | undefined;
  /** The bound the test's orders start with (HarnessOptions.checkoutOrderBoundMs). */
  checkoutOrderBoundMs: number | undefined;
  workers: WorkerSet;
  /** Starts the workers again after `stopWorkers` (same queues, same account). */
  restartWorkers(): Promise<void>;
  stopWorkers(): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** The workers forward catalogue webhook events here (CATALOGUE_EVENTS_URL). */
  catalogueEventsUrl?: string;
  /** Encrypt payloads with this key (workers and the test's client); default: in clear. */
  encryptionKey?: EncryptionKey;
  /** The account's tier: the sandbox's limit and the workers' rate (default 1 per second). */
  ratePerSecond?: number;
  /** The account's checkout batching; default: the product's defaults. */
  checkout?: Partial<CheckoutSettings>;
  /** How long an order waits on its coordinator before asking where it holds it. */
  checkoutOrderBoundMs?: number;
  /** Where the workers deliver store events (STORE_EVENTS_URL, …); default: none. */
  storeEvents?: StoreEventsOptions;
  /**
   * The workers' own pacing of the account's calls, slower than the rate the server hands their
   * tasks out at (`ratePerSecond`): calls are held back by the pacing. Default: the same.
   */
  pacedPerSecond?: number;
  /** This account instead of a new one (a key the sandbox may not know yet, say). */
  account?: TestAccount;
  /** NO_TOKEN_ATTENTION_MINUTES of the workers, in ms. */
  noTokenAttentionMs?: number;
  /** The orders worker polls as this deployment version (WORKER_DEPLOYMENT_NAME); default: not. */
  deployment?: WorkerDeploymentVersion;
  /** The supplier accounts the workers serve; default: the harness's account as the default. */
  accounts?: CreateWorkersOptions['accounts'];
  /** The per-account singletons the workers ensure besides the coordinators. */
  singletons?: CreateWorkersOptions['singletons'];
  /** The store connections and SKU mappings the workers read; default: none. */
  stores?: CreateWorkersOptions['stores'];
  /** The WooCommerce order sweeps the workers supervise (with `stores` that list them). */
  storeSweeps?: CreateWorkersOptions['storeSweeps'];
  /** The workers' connection, the test's own (it closes it): one refusing some calls, say. */
  workerConnection?: NativeConnection;
}

export async function orderHarness(
  tag: string,
  balance?: number,
  options: HarnessOptions = {},
): Promise<OrderHarness> {
  const account = options.account ?? (await newSandboxAccount(balance, options.ratePerSecond));
  const supplier =
    options.pacedPerSecond === undefined
      ? account.client
      : new SupplierClient({
          baseUrl: account.url,
          apiKey: account.apiKey,
          tokenCallIntervalMs: 1_000,
          ratePerSecond: options.pacedPerSecond,
        });
  const queues = taskQueues(`${tag}-${process.pid}-${Date.now().toString(36)}`);
  const workflowBundle = await sharedWorkflowBundle({
    workflowsPath: options.deployment === undefined ? WORKFLOWS_PATH : VERSIONED_WORKFLOWS_PATH,
    // Encrypting workers' workflow code encodes its failures (src/temporal/encryption.ts).
    failureConverterPath: options.encryptionKey === undefined ? undefined : FAILURE_CONVERTER_PATH,
    // With tracing started in the test file (src/temporal/tracing.ts), its workflow interceptors.
    ...workflowBundleOptions(),
  });
  const codec =
    options.encryptionKey === undefined
      ? undefined
      : new EncryptionCodec({ current: options.encryptionKey });
  const dataConverter = dataConverterFor(codec);
  const start = () =>
    createWorkers({
      address: inject('temporalAddress'),
      ...(options.workerConnection !== undefined && { connection: options.workerConnection }),
      namespace: inject('temporalNamespace'),
      queues,
      supplier,
      workflowBundle,
      catalogueEventsUrl: options.catalogueEventsUrl,
      ...(options.storeEvents !== undefined && { storeEvents: options.storeEvents }),
      dataConverter,
      checkout: { ...DEFAULT_CHECKOUT_SETTINGS, ...options.checkout },
      ...(options.checkoutOrderBoundMs !== undefined && {
        checkoutOrderBoundMs: options.checkoutOrderBoundMs,
      }),
      ...(options.ratePerSecond !== undefined && { ratePerSecond: options.ratePerSecond }),
      ...(options.noTokenAttentionMs !== undefined && {
        noTokenAttentionMs: options.noTokenAttentionMs,
      }),
      ...(options.deployment !== undefined && { deployment: options.deployment }),
      ...(options.accounts !== undefined && { accounts: options.accounts }),
      ...(options.singletons !== undefined && { singletons: options.singletons }),
      ...(options.stores !== undefined && { stores: options.stores }),
      ...(options.storeSweeps !== undefined && { storeSweeps: options.storeSweeps }),
    });
  let workers = await start();
  let running = workers.run();
  // The test's own client: it outlives the workers when a test stops and restarts them.
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  const client = new Client({
    connection,
    namespace: inject('temporalNamespace'),
    dataConverter,
    ...tracingClientOptions(),
  });
  const h: OrderHarness = {
    account,
    queues,
    client,
    codec,
    checkoutOrderBoundMs: options.checkoutOrderBoundMs,
    get workers() {
      return workers;
    },
    async stopWorkers() {
      await workers.shutdown();
      await running;
    },
    async restartWorkers() {
      workers = await start();
      running = workers.run();
    },
    async close() {
      // Encrypted histories would need the key to replay: the plain runs are the recorded ones.
      if (codec === undefined) await recordHistories(client, queues.orders);
      await workers.shutdown();
      await running;
      await connection.close();
    },
  };
  return h;
}

/**
 * The order harness of a test file (or of the describe block it is called in): made in a
 * beforeAll, closed in an afterAll. Use the returned object as the harness itself once the block's
 * tests run. `options` may be a function, for values an earlier beforeAll makes (a server's URL).
 */
export function useOrderHarness(
  tag: string,
  balance?: number,
  options: HarnessOptions | (() => HarnessOptions) = {},
): OrderHarness {
  let made: OrderHarness | undefined;
  beforeAll(async () => {
    made = await orderHarness(tag, balance, typeof options === 'function' ? options() : options);
  });
  afterAll(async () => {
    await made?.close();
  });
  return madeLater(() => made, `the ${tag} order harness`);
}

/** Parses an order as dropflow submit would; fails the test on field issues. */
export function validOrder(raw: unknown): OrderInput {
  const parsed = parseOrder(raw);
  if (!parsed.ok) throw new Error(`invalid test order: ${JSON.stringify(parsed.issues)}`);
  return parsed.input;
}

export async function startOrder(h: OrderHarness, input: OrderInput): Promise<WorkflowHandle> {
  const workflowId = orderWorkflowId(input.order.orderNumber);
  nameScenario(workflowId);
  return h.client.workflow.start(ORDER_WORKFLOW, {
    workflowId,
    taskQueue: h.queues.orders,
    args: [input],
    // As the gateway starts an order: with the bound of its wait on the coordinator.
    ...(h.checkoutOrderBoundMs !== undefined && {
      memo: { [CHECKOUT_BOUND_MEMO]: h.checkoutOrderBoundMs },
    }),
  });
}

/**
 * Waits until the order is at `stage` (and `also` holds of its status), failing early if it stops
 * somewhere else a person would have to act, or finishes.
 */
/**
 * Resumes an order as an operator would, once it waits for a person: a status query can show a
 * stage a moment before the wait that takes `resume` begins, or between two checks of one wait,
 * and the order then refuses with "it is not waiting for a person"; an operator tries again.
 */
export async function resumeWhenWaiting(handle: WorkflowHandle, by = 'test'): Promise<void> {
  await eventually(
    `${handle.workflowId} to take resume`,
    () =>
      handle.executeUpdate(resumeUpdate, { args: [{ by }] }).then(
        () => true,
        (err: unknown) => {
          const cause = (err as { cause?: { message?: string } }).cause?.message ?? '';
          if (/not waiting for a person/.test(cause)) return false;
          throw err;
        },
      ),
    (taken) => taken,
  );
}

export async function reachStage(
  handle: WorkflowHandle,
  stage: Stage,
  also: (status: OrderStatus) => boolean = () => true,
): Promise<OrderStatus> {
  return eventually(
    `${handle.workflowId} at ${stage}`,
    () => handle.query(statusQuery),
    (status) => {
      if (status.stage === stage) return also(status);
      if (STOPS.includes(status.stage)) {
        throw new Error(
          `order stopped at ${status.stage} waiting for ${stage}: ${JSON.stringify(status.error ?? status.timeline)}`,
        );
      }
      return false;
    },
    60_000,
  );
}

const STOPS: readonly string[] = ['NEEDS_ATTENTION', 'CANCELLED', 'COMPLETED'];

/** Waits until visibility lists the order in `stage` (visibility trails the workflow a little). */
export async function visibleIn(
  h: OrderHarness,
  orderNumber: string,
  stage: Stage,
  also = '',
): Promise<void> {
  const query = `WorkflowType = '${ORDER_WORKFLOW}' AND OrderNumber = '${orderNumber}' AND FulfillmentStage = '${stage}'${also === '' ? '' : ` AND ${also}`}`;
  await eventually(
    query,
    async () => (await h.client.workflow.count(query)).count,
    (n) => n === 1,
  );
}

/** Runs one tracking sweep on the harness's queues, as the schedule would; its workflow id. */
export async function sweepOnce(h: OrderHarness): Promise<string> {
  const workflowId = `sweep-${h.queues.orders}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
  await h.client.workflow.execute<typeof trackingSweep>('trackingSweep', {
    workflowId,
    taskQueue: h.queues.orders,
    args: [{}],
  });
  return workflowId;
}

/** Sweeps until the order's status satisfies `done` (visibility trails the parcel codes). */
export function sweepUntil(
  h: OrderHarness,
  handle: WorkflowHandle,
  what: string,
  done: (s: OrderStatus) => boolean,
): Promise<OrderStatus> {
  return eventually(
    what,
    async () => {
      await sweepOnce(h);
      return handle.query(statusQuery);
    },
    done,
  );
}

/**
 * The invariant a `dropflow list` relies on: visibility's FulfillmentStage for the order equals
 * its `status` query's stage (visibility may trail a moment; a brief wait may not be written yet).
 * Returns the status it held for.
 */
export async function stageVisible(h: OrderHarness, handle: WorkflowHandle): Promise<OrderStatus> {
  const seen = await eventually(
    `${handle.workflowId}: FulfillmentStage as its status query says`,
    async () => {
      const status: OrderStatus = await handle.query(statusQuery);
      const query = `WorkflowId = '${handle.workflowId}' AND FulfillmentStage = '${status.stage}'`;
      return { status, listed: (await h.client.workflow.count(query)).count };
    },
    (v) => v.listed === 1,
  );
  return seen.status;
}
