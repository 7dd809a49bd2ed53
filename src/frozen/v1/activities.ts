/**
 * The activity stubs of an order workflow. Supplier calls go to the supplier queue of the
 * workflow's own queue set (temporal/taskQueues.ts), where the server enforces the account's rate,
 * with their class's priority. (Replay matches an activity by type and id only: runs of this
 * version moved to the one supplier queue without a patch.)
 */
import { proxyActivities, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import type { BatchActivities, SupplierActivities } from '../../durable/supplierActivities.js';
import type { OrchestrationActivities } from '../../tracking/orchestrationActivities.js';
import { queuesOf } from '../common/account.js';
import {
  BATCH_ACTIVITY_PRIORITY,
  byPriority,
  SUPPLIER_ACTIVITY_PRIORITY,
  type SupplierPriority,
} from '../common/activityProxies.js';
import { FailureType } from '../common/supplier.js';

/**
 * Retryable failures (rate limit, busy, 5xx) are retried with backoff; after this many attempts
 * the order stops at NEEDS_ATTENTION so that a person sees a supplier that stays unwell.
 */
const MAX_ATTEMPTS = 30;

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

export interface Activities {
  supplier: SupplierActivities;
  /**
   * The same, tried once: for calls that must never be sent twice blindly (createOrderV3,
   * payBalanceV2). A retry of a call whose attempt timed out or whose worker died could repeat what
   * the supplier already did; the workflow looks the order up before it tries again.
   */
  supplierOnce: SupplierActivities;
  batch: BatchActivities;
  orchestration: OrchestrationActivities;
}

/** Call inside a workflow only. */
export function activities(): Activities {
  const queues = queuesOf(workflowInfo().taskQueue);
  const onSupplierQueue =
    <T>(options: Pick<ActivityOptions, 'startToCloseTimeout' | 'retry'>) =>
    (priorityKey: SupplierPriority) =>
      proxyActivities<T>({ ...options, taskQueue: queues.supplier, priority: { priorityKey } });
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
    orchestration: proxyActivities<OrchestrationActivities>({
      taskQueue: queues.orders,
      startToCloseTimeout: '2 minutes',
      retry: { ...retry, maximumAttempts: 10 },
    }),
  };
}
