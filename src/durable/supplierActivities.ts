/**
 * Every activity, built from injected clients. Grouped by the task queue that runs them
 * (temporal/taskQueues.ts): `supplier` on the account-rate queue, `batch` on the batch-rate queue.
 */
import type { SupplierClient } from '../supplier/client.js';
import { checkoutBatchActivities } from '../checkout/batchActivities.js';
import { disputeActivities } from '../dispute/activities.js';
import { lookupActivities } from '../tracking/lookupActivities.js';
import { orderActivities } from '../order/activities.js';
import { paymentActivities } from '../checkout/paymentActivities.js';
import { planningActivities } from '../order/planningActivities.js';
import { waybillActivities } from '../order/waybillActivities.js';

export function supplierActivities(supplier: SupplierClient) {
  return {
    ...orderActivities(supplier),
    ...checkoutBatchActivities(supplier),
    ...paymentActivities(supplier),
    ...waybillActivities(supplier),
    ...planningActivities(supplier),
    ...disputeActivities(supplier),
  };
}

export function batchActivities(supplier: SupplierClient) {
  return lookupActivities(supplier);
}

export type SupplierActivities = ReturnType<typeof supplierActivities>;
export type BatchActivities = ReturnType<typeof batchActivities>;
