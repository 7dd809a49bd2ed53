/**
 * The activity stubs of frozen runs, copied from durable/activityProxies.ts and
 * durable/supplierPriority.ts as they were on 2026-11-28: the same activity names, queues,
 * timeouts, retries and priorities. The priority tables name today's activities; one added later
 * needs no entry here (a frozen run never calls it), one removed fails tsc.
 */
import { proxyActivities, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import type {
  BatchActivities,
  OrdersQueueActivities,
  SupplierActivities,
} from '../../durable/supplierActivities.js';
import { accountPriority, queuesOf } from './account.js';
import { FailureType } from './supplier.js';

export const SupplierPriority = {
  Money: 1,
  Cart: 2,
  Create: 3,
  Tracking: 4,
  Other: 5,
} as const;
export type SupplierPriority = (typeof SupplierPriority)[keyof typeof SupplierPriority];

type PriorityTable<T> = { readonly [K in keyof T]?: SupplierPriority };

export const SUPPLIER_ACTIVITY_PRIORITY = {
  payBalanceV2: SupplierPriority.Money,
  getBalance: SupplierPriority.Money,
  ordersOfShipment: SupplierPriority.Money,
  addCart: SupplierPriority.Cart,
  addCartConfirm: SupplierPriority.Cart,
  addCartBatch: SupplierPriority.Cart,
  addCartConfirmBatch: SupplierPriority.Cart,
  saveGenerateParentOrder: SupplierPriority.Cart,
  createOrderV3: SupplierPriority.Create,
  freightCalculate: SupplierPriority.Create,
  queryInventoryByVid: SupplierPriority.Create,
  createConnection: SupplierPriority.Create,
  variantsBySku: SupplierPriority.Create,
  connectedStoreVariants: SupplierPriority.Create,
  getOrderLogisticsInfo: SupplierPriority.Create,
  updateLogistics: SupplierPriority.Create,
  uploadWaybillInfo: SupplierPriority.Create,
  deleteOrder: SupplierPriority.Create,
  disputeProducts: SupplierPriority.Other,
  disputeConfirmInfo: SupplierPriority.Other,
  createDispute: SupplierPriority.Other,
  cancelDispute: SupplierPriority.Other,
  getDisputeList: SupplierPriority.Other,
} as const satisfies PriorityTable<SupplierActivities>;

export const BATCH_ACTIVITY_PRIORITY = {
  getOrderDetailBatch: SupplierPriority.Money,
  getProofOfDelivery: SupplierPriority.Tracking,
} as const satisfies PriorityTable<BatchActivities>;

/** An object whose every method is the one of the stub of that method's priority class. */
export function byPriority<T extends object>(
  classOf: PriorityTable<T>,
  stub: (priority: SupplierPriority) => T,
): T {
  const stubs = new Map<SupplierPriority, T>();
  const stubOf = (p: SupplierPriority): T => {
    let s = stubs.get(p);
    if (s === undefined) {
      s = stub(p);
      stubs.set(p, s);
    }
    return s;
  };
  const names = Object.keys(classOf) as (keyof T)[];
  return Object.fromEntries(names.map((name) => [name, stubOf(classOf[name]!)[name]])) as T;
}

const retry = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '2 minutes',
  maximumAttempts: 3,
  nonRetryableErrorTypes: [
    FailureType.Ambiguous,
    FailureType.Business,
    FailureType.Fatal,
    FailureType.InvalidRequest,
  ],
};

export interface Activities {
  supplier: SupplierActivities;
  /** The same, tried once: for calls that may act. */
  supplierOnce: SupplierActivities;
  batch: BatchActivities;
  orchestration: OrdersQueueActivities;
}

/** Call inside a workflow only. */
export function activities(): Activities {
  const queues = queuesOf(workflowInfo().taskQueue);
  const weighted = accountPriority({ weighted: true });
  const onSupplierQueue =
    <T>(options: Pick<ActivityOptions, 'startToCloseTimeout' | 'retry'>) =>
    (priorityKey: SupplierPriority) =>
      proxyActivities<T>({
        ...options,
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

/** The store-event delivery, on the workflow's own queue, one attempt per call. */
export function storeEventDelivery(): OrdersQueueActivities['deliverStoreEvent'] {
  return oneAttemptHere().deliverStoreEvent;
}

/** The wait for the account's access token, on the workflow's own (orders) queue. */
export function accessTokenWait(): OrdersQueueActivities['awaitAccessToken'] {
  return oneAttemptHere().awaitAccessToken;
}

const oneAttemptHere = () =>
  proxyActivities<OrdersQueueActivities>({
    taskQueue: workflowInfo().taskQueue,
    startToCloseTimeout: '2 minutes',
    retry: { maximumAttempts: 1 },
    priority: accountPriority(),
  });
