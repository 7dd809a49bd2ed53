/**
 * The cart steps for a whole checkout batch (coordinator.ts): one addCart and one
 * addCartConfirm over many orders, each order getting its own outcome. Payment and the parent
 * order are the same calls as for one order (paymentActivities.ts, ../order/activities.ts); the
 * supplier's interception is read as for one order (../supplier/interception.ts).
 */
import type { SupplierClient } from '../supplier/client.js';
import { addCart, addCartConfirm } from '../supplier/api/orders.js';
import { interception, type Reason } from '../supplier/interception.js';
import {
  confirmedWithoutShipmentFailure,
  supplierCall,
  supplierExchange,
} from '../supplier/supplierCall.js';

/** The orders of a batch the supplier stopped, with its reasons; the others went through. */
export interface BatchCartOutcome {
  intercepted: { svcOrderId: string; reasons: Reason[] }[];
}

function stopped(
  entries: Parameters<typeof interception>[0],
  ids: readonly string[],
): BatchCartOutcome['intercepted'] {
  return ids.flatMap((svcOrderId) => {
    const outcome = interception(entries, svcOrderId);
    return outcome.intercepted ? [{ svcOrderId, reasons: outcome.reasons }] : [];
  });
}

export function checkoutBatchActivities(supplier: SupplierClient) {
  return {
    async addCartBatch(svcOrderIds: string[]): Promise<BatchCartOutcome> {
      const r = await supplierCall(supplier, addCart, { svcOrderIdList: svcOrderIds });
      return { intercepted: stopped(r.interceptOrders, svcOrderIds) };
    },

    async addCartConfirmBatch(
      svcOrderIds: string[],
    ): Promise<BatchCartOutcome & { shipmentOrderId?: string }> {
      const { data: r, requestId } = await supplierExchange(supplier, addCartConfirm, {
        svcOrderIdList: svcOrderIds,
      });
      const intercepted = stopped(r.interceptOrders, svcOrderIds);
      if (intercepted.length < svcOrderIds.length && r.shipmentsId == null) {
        throw confirmedWithoutShipmentFailure(requestId);
      }
      return { intercepted, ...(r.shipmentsId != null && { shipmentOrderId: r.shipmentsId }) };
    },
  };
}

declare module '../durable/supplierActivities.js' {
  interface SupplierActivities extends ReturnType<typeof checkoutBatchActivities> {}
}
