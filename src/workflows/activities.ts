/**
 * The activity stubs of an order workflow. Supplier calls go to the supplier queues of the
 * workflow's own queue set (temporal/taskQueues.ts), where the server enforces the account's rate.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { BatchActivities, SupplierActivities } from '../activities/index.js';
import type { OrchestrationActivities } from '../activities/orchestration.js';
import { FailureType } from '../client/failures.js';
import { queuesOf } from '../temporal/taskQueues.js';

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

export interface Activities {
  supplier: SupplierActivities;
  /**
   * The same, tried once: for calls that may act (create, cart, confirm, payment, waybill,
   * connection, dispute). A retry of a call whose attempt timed out or whose worker died could
   * repeat what the supplier already did; the supplier step settles the outcome first.
   */
  supplierOnce: SupplierActivities;
  batch: BatchActivities;
  orchestration: OrchestrationActivities;
}

/** Call inside a workflow only. */
export function activities(): Activities {
  const queues = queuesOf(workflowInfo().taskQueue);
  return {
    supplier: proxyActivities<SupplierActivities>({
      taskQueue: queues.supplier,
      startToCloseTimeout: '1 minute',
      retry,
    }),
    supplierOnce: proxyActivities<SupplierActivities>({
      taskQueue: queues.supplier,
      startToCloseTimeout: '1 minute',
      retry: { maximumAttempts: 1 },
    }),
    batch: proxyActivities<BatchActivities>({
      taskQueue: queues.batch,
      startToCloseTimeout: '1 minute',
      retry,
    }),
    orchestration: proxyActivities<OrchestrationActivities>({
      taskQueue: queues.orders,
      startToCloseTimeout: '2 minutes',
      retry: { ...retry, maximumAttempts: 10 },
    }),
  };
}
