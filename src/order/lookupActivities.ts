/**
 * Batch queries: finding orders after an ambiguous failure, and the tracking sweeper's status and
 * proof-of-delivery questions. Up to 100 ids per call.
 */
import type { SupplierClient } from '../supplier/client.js';
import { getOrderDetailBatch, getProofOfDelivery } from '../supplier/api/orders.js';
import { supplierCall } from '../supplier/supplierCall.js';

/** What dropflow keeps of a supplier order: its state, never the address. */
export interface OrderSnapshot {
  /** The supplier's svcOrderId, or its orderId when it gives none. */
  svcOrderId: string;
  svcOrderCode?: string;
  /** The supplier's orderId, when it gives one (it may differ from svcOrderId). */
  orderId?: string;
  orderNumber?: string;
  orderStatus?: string;
  subStatus?: string;
  logisticName?: string;
  trackNumber?: string;
  trackingUrl?: string;
  orderAmount?: number;
  /** The parts of orderAmount (USD), for the margin rule's landed cost. */
  productAmount?: number;
  postageAmount?: number;
  /** The supplier's dates as it writes them (UTC, `yyyy-MM-dd HH:mm:ss`). */
  createDate?: string;
  paymentDate?: string;
  outWarehouseTime?: string;
  /** What the order holds: each line's variant, quantity and the store's line id. */
  lines?: { vid: string; quantity: number; storeLineItemId?: string }[];
}

export function lookupActivities(supplier: SupplierClient) {
  return {
    /** Orders by svc order id, svc order code or the caller's order number; unknown ids are left out. */
    async getOrderDetailBatch(orderIds: string[]): Promise<OrderSnapshot[]> {
      const orders = await supplierCall(supplier, getOrderDetailBatch, { orderIds });
      return orders.flatMap((o) => {
        const svcOrderId = o.svcOrderId ?? o.orderId;
        if (svcOrderId == null) return [];
        return [
          {
            svcOrderId,
            ...(o.svcOrderCode != null && { svcOrderCode: o.svcOrderCode }),
            ...(o.orderId != null && { orderId: o.orderId }),
            ...(o.orderNum != null && { orderNumber: o.orderNum }),
            ...(o.orderStatus != null && { orderStatus: o.orderStatus }),
            ...(o.subStatus != null && { subStatus: o.subStatus }),
            ...(o.logisticName != null && { logisticName: o.logisticName }),
            ...(o.trackNumber != null && { trackNumber: o.trackNumber }),
            ...(o.trackingUrl != null && { trackingUrl: o.trackingUrl }),
            ...(o.orderAmount != null && { orderAmount: o.orderAmount }),
            ...(o.productAmount != null && { productAmount: o.productAmount }),
            ...(o.postageAmount != null && { postageAmount: o.postageAmount }),
            ...(o.createDate != null && { createDate: o.createDate }),
            ...(o.paymentDate != null && { paymentDate: o.paymentDate }),
            ...(o.outWarehouseTime != null && { outWarehouseTime: o.outWarehouseTime }),
            ...(o.productList.length > 0 && {
              lines: o.productList.flatMap((l) =>
                l.vid == null || l.quantity == null
                  ? []
                  : [
                      {
                        vid: l.vid,
                        quantity: l.quantity,
                        ...(l.storeLineItemId != null && { storeLineItemId: l.storeLineItemId }),
                      },
                    ],
              ),
            }),
          },
        ];
      });
    },

    async getProofOfDelivery(orderIds: string[]): Promise<Record<string, string[]>> {
      const proofs = await supplierCall(supplier, getProofOfDelivery, { orderIds });
      return Object.fromEntries(proofs.map((p) => [p.orderId, p.proofOfDeliveryList]));
    },
  };
}

declare module '../durable/supplierActivities.js' {
  interface BatchActivities extends ReturnType<typeof lookupActivities> {}
}
