/**
 * The supplier activities of every area, built from one supplier client for the worker: `supplier`
 * on the account-rate queue, `batch` the batch look-ups on it too (temporal/taskQueues.ts). Each
 * area declares its own in durable/supplierActivities.ts's registry; the return types check that
 * every activity declared there is built here.
 */
import type { SupplierClient } from './supplier/client.js';
import type { BatchActivities, SupplierActivities } from './durable/supplierActivities.js';
import { checkoutBatchActivities } from './checkout/batchActivities.js';
import { paymentActivities } from './checkout/paymentActivities.js';
import { disputeActivities } from './dispute/activities.js';
import { orderActivities } from './order/activities.js';
import { planningActivities } from './order/planningActivities.js';
import { waybillActivities } from './order/waybillActivities.js';
import { lookupActivities } from './order/lookupActivities.js';
import { storeSkuActivities } from './store/intake/skuActivities.js';
import { storeConnectionActivities } from './store/intake/connectionActivities.js';

export function supplierActivities(supplier: SupplierClient): SupplierActivities {
  return {
    ...orderActivities(supplier),
    ...checkoutBatchActivities(supplier),
    ...paymentActivities(supplier),
    ...waybillActivities(supplier),
    ...planningActivities(supplier),
    ...disputeActivities(supplier),
    ...storeSkuActivities(supplier),
    ...storeConnectionActivities(supplier),
  };
}

export function batchActivities(supplier: SupplierClient): BatchActivities {
  return lookupActivities(supplier);
}
