/**
 * The activity stubs of an order workflow. Every supplier call goes to the one supplier queue of
 * the workflow's own queue set (temporal/taskQueues.ts), where the server enforces the account's
 * rate, with the priority of its class (supplierPriority.ts): one stub per class, and each method
 * name routed to its class's stub. Every activity carries the workflow's account as fairness key
 * (supplier calls also its tier as weight: durable/account.ts).
 */
import {
  proxyActivities,
  proxyLocalActivities,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type {
  BatchActivities,
  OrdersQueueActivities,
  SupplierActivities,
} from './supplierActivities.js';
import { FailureType } from '../supplier/failureDetails.js';
import { queuesOf } from '../temporal/taskQueues.js';
import { accountPriority } from './account.js';
import {
  BATCH_ACTIVITY_PRIORITY,
  byPriority,
  SUPPLIER_ACTIVITY_PRIORITY,
  type SupplierPriority,
} from './supplierPriority.js';

/**
 * Reads are retried a few times by Temporal; what still fails reaches the workflow's supplier
 * step, which waits out a busy supplier and asks a person about the rest.
 */
const MAX_ATTEMPTS = 3;

const retry = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '2 minutes',
  maximumAttempts: MAX_ATTEMPTS,
  nonRetryableErrorTypes: [
    FailureType.Ambiguous,
    FailureType.Business,
    FailureType.Fatal,
    FailureType.InvalidRequest,
  ],
};

/** How long a supplier call's worker may be silent before its task goes back to the queue. */
const SUPPLIER_HEARTBEAT_TIMEOUT = '10 seconds';

export interface Activities {
  supplier: SupplierActivities;
  /**
   * The same, tried once: for calls that may act (create, cart, confirm, payment, waybill,
   * connection, dispute). A retry of a call whose attempt timed out or whose worker died could
   * repeat what the supplier already did; the supplier step settles the outcome first.
   */
  supplierOnce: SupplierActivities;
  batch: BatchActivities;
  orchestration: OrdersQueueActivities;
}

/** Call inside a workflow only. */
export function activities(): Activities {
  const queues = queuesOf(workflowInfo().taskQueue);
  const weighted = accountPriority({ weighted: true });
  /**
   * A stub per priority class, on the supplier queue, in the account's line. Its heartbeat timeout
   * brings back within seconds a task its worker will never finish (the supplier queues' workers
   * beat for every running task: temporal/heartbeatWhileRunning.ts).
   */
  const onSupplierQueue =
    <T>(options: Pick<ActivityOptions, 'startToCloseTimeout' | 'retry'>) =>
    (priorityKey: SupplierPriority) =>
      proxyActivities<T>({
        ...options,
        heartbeatTimeout: SUPPLIER_HEARTBEAT_TIMEOUT,
        taskQueue: queues.supplier,
        priority: { priorityKey, ...weighted },
      });
  return {
    supplier: byPriority(
      SUPPLIER_ACTIVITY_PRIORITY,
      onSupplierQueue<SupplierActivities>({ startToCloseTimeout: '1 minute', retry }),
    ),
    supplierOnce: byPriority(
      SUPPLIER_ACTIVITY_PRIORITY,
      onSupplierQueue<SupplierActivities>({
        startToCloseTimeout: '1 minute',
        retry: { maximumAttempts: 1 },
      }),
    ),
    batch: byPriority(
      BATCH_ACTIVITY_PRIORITY,
      onSupplierQueue<BatchActivities>({ startToCloseTimeout: '1 minute', retry }),
    ),
    orchestration: proxyActivities<OrdersQueueActivities>({
      taskQueue: queues.orders,
      startToCloseTimeout: '2 minutes',
      retry: { ...retry, maximumAttempts: 10 },
      priority: accountPriority(),
    }),
  };
}

/**
 * The store-event delivery of an order or dispute workflow, on its own queue: one attempt per
 * call, as the outbox (storeEvents/outbox.ts) decides when to try again. Call inside a workflow only.
 */
export function storeEventDelivery(): OrdersQueueActivities['deliverStoreEvent'] {
  return oneAttemptHere().deliverStoreEvent;
}

// Two minutes: above the longest request timeout the workers accept (STORE_EVENTS_TIMEOUT_MS).
const oneAttemptHere = () =>
  proxyActivities<OrdersQueueActivities>({
    taskQueue: workflowInfo().taskQueue,
    startToCloseTimeout: '2 minutes',
    retry: { maximumAttempts: 1 },
    priority: accountPriority(),
  });

/**
 * The wait for the account's access token (session/tokenWaitActivities.ts), on the workflow's own
 * (orders) queue: it sends no supplier request. Its answer comes within about a minute; a worker
 * that does not know it yet (a rolling deploy) fails it, and the caller asks again a little later.
 * Call inside a workflow only.
 */
export function accessTokenWait(): OrdersQueueActivities['awaitAccessToken'] {
  return oneAttemptHere().awaitAccessToken;
}

/**
 * The checkout coordinator's telling of outcomes (checkout/tellActivities.ts), on its own (orders)
 * queue: retried with a bounded backoff (every attempt's signals carry the same request ids, so a
 * retry tells no order twice); if every attempt fails, the coordinator signals the orders itself.
 * Call inside a workflow only.
 */
export function outcomeTelling(): OrdersQueueActivities['tellOutcomes'] {
  return proxyActivities<OrdersQueueActivities>({
    taskQueue: workflowInfo().taskQueue,
    startToCloseTimeout: '2 minutes',
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '30 seconds',
      maximumAttempts: 6,
    },
    priority: accountPriority(),
  }).tellOutcomes;
}

/**
 * An order's word to its checkout coordinator that it is ready (checkout/startActivities.ts
 * announceReady), a local activity: the worker gathers it with the account's other ready orders
 * into one signal, and the order records one marker instead of a signal's two events. A few
 * tries within about half a minute; then the order signals as before. Call inside a workflow only.
 */
export function readyAnnouncing(): OrdersQueueActivities['announceReady'] {
  return proxyLocalActivities<OrdersQueueActivities>({
    startToCloseTimeout: '10 seconds',
    retry: {
      initialInterval: '1 second',
      backoffCoefficient: 2,
      maximumInterval: '10 seconds',
      maximumAttempts: 3,
    },
  }).announceReady;
}
