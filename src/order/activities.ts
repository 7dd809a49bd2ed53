/**
 * Order activities: one supplier call each, named after the endpoint (docs/supplier-api.md §7).
 * They return only what the workflow needs, and nothing personal, since results are kept in
 * history.
 */
import type { SupplierClient } from '../supplier/client.js';
import {
  addCart,
  addCartConfirm,
  createOrderV3,
  deleteOrder,
  getOrderLogisticsInfo,
  interceptedOrderId,
  listOrders,
  saveGenerateParentOrder,
  updateLogistics,
  type CreateOrderRequest,
  type ParentOrderResult,
} from '../supplier/api/orders.js';
import { OrderStatus } from '../supplier/api/constants.js';
import {
  confirmedWithoutShipmentFailure,
  supplierCall,
  supplierExchange,
  unusableAnswer,
} from '../supplier/supplierCall.js';
import { interception, toReason, type Reason, type StepOutcome } from '../supplier/interception.js';

/** The supplier's `yyyy-MM-dd HH:mm:ss` (UTC) as an ISO instant; undefined when unreadable. */
function utcTime(text: string): string | undefined {
  const at = Date.parse(`${text.replace(' ', 'T')}Z`);
  return Number.isNaN(at) ? undefined : new Date(at).toISOString();
}

export interface Amounts {
  orderAmount?: number;
  productAmount?: number;
  postageAmount?: number;
}

export interface CreatedOrder {
  /** Absent for a store-flow order whose products are not connected yet. */
  svcOrderId?: string;
  shipmentOrderId?: string;
  amounts: Amounts;
  logisticsMiss: boolean;
  /** Interception reasons reported at creation; empty when none. */
  reasons: Reason[];
}

export interface LogisticsChoice {
  id: string;
  logisticsName: string;
  postage?: number;
  arrivalTime?: string;
}

/**
 * What the shipment costs to land, from the parent order's payment information: goods and freight
 * less their discounts, plus IOSS and fees; its order money when it gives no parts. Whether
 * `commodityTotalAmount` and `freight` are before their discounts is not stated: taken as before.
 */
function parentLandedCost(r: ParentOrderResult): number | undefined {
  const p = r.paymentInformation;
  if (p?.commodityTotalAmount == null || p.freight == null) return r.orderMoney ?? undefined;
  const cost =
    p.commodityTotalAmount -
    (p.commodityDiscount ?? 0) +
    p.freight -
    (p.postageDiscount ?? 0) -
    (p.couponAmount ?? 0) +
    (p.iossAmount ?? 0) +
    (p.iossTaxHandlingFee ?? 0) +
    (p.serviceFee ?? 0);
  return Math.round(cost * 100) / 100;
}

export function orderActivities(supplier: SupplierClient) {
  return {
    async createOrderV3(order: CreateOrderRequest): Promise<CreatedOrder> {
      const r = await supplierCall(supplier, createOrderV3, order);
      return {
        ...(r.orderId != null && { svcOrderId: r.orderId }),
        ...(r.shipmentOrderId != null && { shipmentOrderId: r.shipmentOrderId }),
        amounts: {
          ...(r.orderAmount != null && { orderAmount: r.orderAmount }),
          ...(r.productAmount != null && { productAmount: r.productAmount }),
          ...(r.postageAmount != null && { postageAmount: r.postageAmount }),
        },
        logisticsMiss: r.logisticsMiss === true,
        reasons: r.interceptOrderReasons.map(toReason),
      };
    },

    async addCart(svcOrderId: string): Promise<StepOutcome> {
      const r = await supplierCall(supplier, addCart, { svcOrderIdList: [svcOrderId] });
      return interception(r.interceptOrders, svcOrderId);
    },

    async addCartConfirm(svcOrderId: string): Promise<StepOutcome & { shipmentOrderId?: string }> {
      const { data: r, requestId } = await supplierExchange(supplier, addCartConfirm, {
        svcOrderIdList: [svcOrderId],
      });
      const outcome = interception(r.interceptOrders, svcOrderId);
      if (!outcome.intercepted && r.shipmentsId == null) {
        throw confirmedWithoutShipmentFailure(requestId);
      }
      return { ...outcome, ...(r.shipmentsId != null && { shipmentOrderId: r.shipmentsId }) };
    },

    async saveGenerateParentOrder(
      shipmentOrderId: string,
    ): Promise<
      StepOutcome & { payId?: string; amount?: number; payExpiresAt?: string; landedCost?: number }
    > {
      const r = await supplierCall(supplier, saveGenerateParentOrder, { shipmentOrderId });
      const landed = parentLandedCost(r);
      const intercepted = r.interceptOrders.length > 0;
      if (!intercepted && r.payId == null) {
        throw unusableAnswer('saveGenerateParentOrder', 'a parent order without a payId');
      }
      return {
        intercepted,
        reasons: intercepted
          ? interception(r.interceptOrders, interceptedOrderId(r.interceptOrders[0]!) ?? '').reasons
          : [],
        ...(r.payId != null && { payId: r.payId }),
        ...(r.payExpireTime != null && { payExpiresAt: utcTime(r.payExpireTime) }),
        ...(landed !== undefined && { landedCost: landed }),
        ...((r.paymentInformation?.payableAmount ?? r.orderMoney) != null && {
          amount: r.paymentInformation?.payableAmount ?? r.orderMoney ?? undefined,
        }),
      };
    },

    /** The supplier order ids an unpaid shipment (parent order) holds. */
    async ordersOfShipment(shipmentOrderId: string): Promise<string[]> {
      const r = await supplierCall(supplier, listOrders, {
        shipmentOrderId,
        status: OrderStatus.Unpaid,
        pageSize: 100,
      });
      return r.list.flatMap((o) => [o.svcOrderId, o.orderId].filter((id) => id != null));
    },

    async getOrderLogisticsInfo(orderCode: string): Promise<LogisticsChoice[]> {
      const options = await supplierCall(supplier, getOrderLogisticsInfo, { orderCode });
      return options.map((o) => ({
        id: o.id,
        logisticsName: o.logisticsName ?? '',
        ...(o.postage != null && { postage: o.postage }),
        ...(o.arrivalTime != null && { arrivalTime: o.arrivalTime }),
      }));
    },

    async updateLogistics(change: {
      orderCode: string;
      optionId: string;
      logisticsName: string;
    }): Promise<StepOutcome> {
      const r = await supplierCall(supplier, updateLogistics, {
        id: change.optionId,
        orderCode: change.orderCode,
        logisticsName: change.logisticsName,
      });
      const reasons = r.interceptAbnormalReasons.map((x) =>
        typeof x === 'string' ? { message: x } : toReason(x),
      );
      return { intercepted: reasons.length > 0, reasons };
    },

    async deleteOrder(svcOrderId: string): Promise<void> {
      await supplierCall(supplier, deleteOrder, { orderId: svcOrderId });
    },
  };
}

declare module '../durable/supplierActivities.js' {
  interface SupplierActivities extends ReturnType<typeof orderActivities> {}
}
