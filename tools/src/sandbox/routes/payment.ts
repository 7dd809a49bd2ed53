/**
 * Payment from balance (docs/supplier-api.md §7.4): payBalanceV2 pays a shipment (parent order),
 * payBalance one confirmed order; sandbox orders (isSandbox 1) are not charged; nothing is paid
 * twice, nor once its pay window is over (payWindow.ts).
 */
import { getBalance, OrderStatus, payBalance, payBalanceV2, SupplierCode } from 'dropflow/supplier';
import { ownShipment, payOrders, shipmentOrders } from '../checkout.js';
import { findOwnOrder, isPaid } from '../orderBook.js';
import { payExpired, payIdExpired, refuseExpired } from '../payWindow.js';
import { paramError, SandboxError, type SandboxRouter } from '../routing.js';
import type { Sandbox } from '../sandbox.js';

function payFail(why: string): SandboxError {
  return new SandboxError(SupplierCode.PayFailed, `Order pay fail: ${why}`);
}

function refuseRepeat(sb: Sandbox, openId: string): SandboxError {
  sb.count(openId, (s) => (s.repeatedPaymentsRefused += 1));
  return payFail('already paid');
}

export function registerPaymentRoutes(r: SandboxRouter): void {
  r.serve(payBalanceV2, ({ shipmentOrderId, payId }, account, sb) => {
    const shipment = ownShipment(sb, account.openId, shipmentOrderId);
    if (!shipment) throw paramError('shipmentOrderId', `no shipment order "${shipmentOrderId}"`);
    const orders = shipmentOrders(sb, shipment);
    const unpaid = orders.filter((o) => o.status === OrderStatus.Unpaid && !isPaid(o));
    if (shipment.paid || unpaid.length === 0) throw refuseRepeat(sb, account.openId);
    if (shipment.payId === undefined) {
      throw payFail('no payment id yet: call saveGenerateParentOrder first');
    }
    if (payIdExpired(sb, shipment, payId)) throw refuseExpired(sb, shipment, payId);
    if (shipment.payId !== payId)
      throw payFail(`payId "${payId}" is not the payment id of shipment ${shipment.id}`);
    payOrders(sb, account, unpaid);
    return shipment.id;
  });

  r.serve(payBalance, ({ orderId }, account, sb) => {
    const order = findOwnOrder(sb, account.openId, orderId);
    if (!order) throw paramError('orderId', `order "${orderId}" does not exist`);
    if (isPaid(order)) throw refuseRepeat(sb, account.openId);
    if (order.status !== OrderStatus.Unpaid || order.shipmentOrderId === undefined) {
      throw payFail(
        `the order is ${order.status}; confirm it first (addCart and addCartConfirm, or confirmOrder)`,
      );
    }
    const shipment = sb.state.shipments[order.shipmentOrderId];
    if (shipment && shipmentOrders(sb, shipment).length > 1) {
      throw payFail(
        `the order belongs to parent order ${shipment.id} with several orders: pay it with payBalanceV2`,
      );
    }
    if (shipment && payExpired(sb, shipment)) throw refuseExpired(sb, shipment);
    payOrders(sb, account, [order]);
    return order.svcOrderId;
  });

  r.serve(getBalance, (_input, account) => ({
    amount: account.balance.amount,
    noWithdrawalAmount: account.balance.noWithdrawalAmount,
    freezeAmount: account.balance.freezeAmount,
  }));
}
