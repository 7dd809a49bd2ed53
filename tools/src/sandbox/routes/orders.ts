/**
 * Orders (docs/supplier-api.md §7.1 to §7.3, §7.8): create, cart, confirmation, parent order,
 * confirm and delete. Queries: orderQueries.ts; logistics of an order: orderLogistics.ts.
 */
import {
  addCart,
  addCartConfirm,
  confirmOrder,
  createOrderV2,
  createOrderV3,
  deleteOrder,
  OrderStatus,
  PayType,
  saveGenerateParentOrder,
  SupplierCode,
  WebhookChange,
  WebhookTopic,
  WebhookType,
} from 'dropflow/supplier';
import {
  addToCart,
  confirmCart,
  createShipment,
  generateParentOrder,
  ownShipment,
  payOrders,
} from '../checkout.js';
import { evaluateOrder, findOwnOrder, isIntercepted } from '../orderBook.js';
import { intakeOrder } from '../orderIntake.js';
import { createOrderData } from '../orderView.js';
import { paramError, SandboxError, type SandboxRouter } from '../routing.js';
import type { Sandbox } from '../sandbox.js';
import type { SandboxAccount, SandboxOrder } from '../state.js';
import { registerOrderLogisticsRoutes } from './orderLogistics.js';

export function registerOrderRoutes(r: SandboxRouter): void {
  r.serve(createOrderV3, (input, account, sb) => createOrderData(intakeOrder(sb, account, input)));

  r.serve(createOrderV2, (input, account, sb) => {
    const order = intakeOrder(sb, account, input);
    if (input.payType === PayType.Balance) return createOrderData(payRightAway(sb, account, order));
    // payType 1 (or omitted) is the deprecated page payment: a pay page address is still returned.
    const payUrl =
      input.payType === PayType.CreateOnly
        ? undefined
        : `https://sandbox.example.com/pay?orderId=${order.svcOrderId}`;
    return createOrderData(order, payUrl);
  });

  r.serve(addCart, ({ svcOrderIdList }, account, sb) => {
    const { added, intercepted } = addToCart(sb, account.openId, svcOrderIdList);
    return {
      successCount: added.length,
      addSuccessOrders: added.map((o) => o.svcOrderId),
      unInterceptAddressCount: added.length,
      interceptOrders: intercepted.map((o) => ({
        orderId: o.svcOrderId,
        orderNumber: o.orderNumber,
        logisticsMiss: o.logisticsMiss,
        interceptOrderReasons: o.interceptReasons,
      })),
    };
  });

  r.serve(addCartConfirm, ({ svcOrderIdList }, account, sb) => {
    const { confirmed, intercepted, shipment } = confirmCart(sb, account.openId, svcOrderIdList);
    return {
      successCount: confirmed.length,
      submitSuccess: shipment !== undefined,
      shipmentsId: shipment?.id ?? null,
      result: shipment !== undefined,
      interceptOrders: intercepted.map((o) => o.svcOrderId),
    };
  });

  r.serve(saveGenerateParentOrder, ({ shipmentOrderId }, account, sb) => {
    const shipment = ownShipment(sb, account.openId, shipmentOrderId);
    if (!shipment) throw paramError('shipmentOrderId', `no shipment order "${shipmentOrderId}"`);
    return generateParentOrder(sb, account, shipment);
  });

  r.serve(confirmOrder, ({ orderId }, account, sb) => {
    const order = findOwnOrder(sb, account.openId, orderId);
    const fail = (why: string) =>
      new SandboxError(SupplierCode.ConfirmFailed, `Order confirm fail: ${why}`);
    if (!order) throw fail(`order "${orderId}" does not exist`);
    if (order.status === OrderStatus.Unpaid) return order.svcOrderId;
    if (order.status !== OrderStatus.Created && order.status !== OrderStatus.InCart) {
      throw fail(`the order is ${order.status}`);
    }
    evaluateOrder(sb, order);
    if (isIntercepted(order)) {
      throw fail(
        `the order is intercepted: ${order.interceptReasons.map((x) => x.message).join('; ')}`,
      );
    }
    createShipment(sb, account.openId, [order]);
    return order.svcOrderId;
  });

  r.serve(deleteOrder, ({ orderId }, account, sb) => {
    const order = findOwnOrder(sb, account.openId, orderId);
    if (!order) throw paramError('orderId', `order "${orderId}" does not exist`);
    if (order.status !== OrderStatus.Created && order.status !== OrderStatus.InCart) {
      throw paramError(
        'orderId',
        `the order is ${order.status}: a confirmed order cannot be deleted`,
      );
    }
    Reflect.deleteProperty(sb.state.orders, order.svcOrderId);
    sb.emit(account.openId, WebhookTopic.Order, {
      type: WebhookType.Order,
      messageType: WebhookChange.Delete,
      params: {
        svcOrderId: order.svcOrderId,
        orderNumber: order.orderNumber,
        privateOutboundOrder: false,
      },
    });
    return order.svcOrderId;
  });

  registerOrderLogisticsRoutes(r);
}

/**
 * createOrderV2 with payType 2: cart, confirmation and balance payment at once. An intercepted
 * order stays CREATED; a short balance leaves it UNPAID under its shipment.
 */
function payRightAway(sb: Sandbox, account: SandboxAccount, order: SandboxOrder): SandboxOrder {
  if (isIntercepted(order) || order.awaitingConnection) return order;
  const shipment = createShipment(sb, account.openId, [order]);
  generateParentOrder(sb, account, shipment);
  try {
    payOrders(sb, account, [order]);
  } catch (err) {
    if (!(err instanceof SandboxError)) throw err;
  }
  return order;
}
