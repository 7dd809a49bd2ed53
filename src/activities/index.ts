/**
 * Every activity, built from injected clients. Grouped by the task queue that runs them
 * (temporal/taskQueues.ts): `supplier` on the account-rate queue, `batch` on the batch-rate queue.
 */
import type { SupplierClient } from '../supplier/client.js';
import { checkoutBatchActivities } from './checkoutBatch.js';
import { disputeActivities } from './disputes.js';
import { lookupActivities } from './lookups.js';
import { orderActivities } from './orders.js';
import { paymentActivities } from './payment.js';
import { planningActivities } from './planning.js';
import { waybillActivities } from './waybill.js';

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
