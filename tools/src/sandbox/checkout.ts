/**
 * From created order to paid order: cart, confirmation (a shipment, the parent order), the
 * payment id, and the charge to the balance. The routes of orders and payment, and
 * createOrderV2's balance payment (payType 2), all go through these.
 */
import { OrderStatus, SupplierCode, UnshippedSubStatus } from 'dropflow/supplier';
import { splitAtPayment } from './split.js';
import {
  evaluateOrder,
  findOwnOrder,
  isIntercepted,
  isPaid,
  round2,
  setStatus,
} from './orderBook.js';
import { utcDate } from './orderView.js';
import { ensurePayId } from './payWindow.js';
import { SandboxError } from './routing.js';
import type { Sandbox } from './sandbox.js';
import type { SandboxAccount, SandboxOrder, SandboxShipment } from './state.js';

function ownOrders(sb: Sandbox, openId: string, ids: readonly string[]): SandboxOrder[] {
  const seen = new Set<string>();
  const out: SandboxOrder[] = [];
  for (const key of ids) {
    const order = findOwnOrder(sb, openId, key);
    if (order && !seen.has(order.svcOrderId)) {
      seen.add(order.svcOrderId);
      out.push(order);
    }
  }
  return out;
}

export interface CartOutcome {
  added: SandboxOrder[];
  intercepted: SandboxOrder[];
}

/**
 * addCart: CREATED → IN_CART, after the interception rules ran again (a fixed order goes
 * through). Orders already in the cart count as added; unknown ids and later statuses are skipped.
 */
export function addToCart(sb: Sandbox, openId: string, ids: readonly string[]): CartOutcome {
  const outcome: CartOutcome = { added: [], intercepted: [] };
  for (const order of ownOrders(sb, openId, ids)) {
    if (order.status === OrderStatus.InCart) {
      outcome.added.push(order);
      continue;
    }
    if (order.status !== OrderStatus.Created) continue;
    evaluateOrder(sb, order);
    if (isIntercepted(order)) {
      outcome.intercepted.push(order);
      continue;
    }
    setStatus(sb, order, OrderStatus.InCart);
    outcome.added.push(order);
  }
  return outcome;
}

export interface ConfirmOutcome {
  confirmed: SandboxOrder[];
  intercepted: SandboxOrder[];
  shipment: SandboxShipment | undefined;
}

/**
 * addCartConfirm: IN_CART → UNPAID under one new shipment. A repeated confirmation of orders that
 * are already UNPAID under one unpaid shipment answers with that shipment again.
 */
export function confirmCart(sb: Sandbox, openId: string, ids: readonly string[]): ConfirmOutcome {
  const fresh: SandboxOrder[] = [];
  const already: SandboxOrder[] = [];
  const intercepted: SandboxOrder[] = [];
  for (const order of ownOrders(sb, openId, ids)) {
    if (order.status === OrderStatus.Unpaid && order.shipmentOrderId !== undefined) {
      already.push(order);
      continue;
    }
    if (order.status !== OrderStatus.InCart) continue;
    evaluateOrder(sb, order);
    if (isIntercepted(order)) intercepted.push(order);
    else fresh.push(order);
  }
  if (fresh.length > 0) {
    return { confirmed: fresh, intercepted, shipment: createShipment(sb, openId, fresh) };
  }
  const shipmentIds = new Set(already.map((o) => o.shipmentOrderId!));
  const previous = shipmentIds.size === 1 ? sb.state.shipments[[...shipmentIds][0]!] : undefined;
  return previous && !previous.paid
    ? { confirmed: already, intercepted, shipment: previous }
    : { confirmed: [], intercepted, shipment: undefined };
}

/** A shipment (parent order) over confirmed orders, which become UNPAID. */
export function createShipment(
  sb: Sandbox,
  openId: string,
  orders: readonly SandboxOrder[],
): SandboxShipment {
  const shipment: SandboxShipment = {
    id: sb.nextId('SH'),
    openId,
    orderIds: orders.map((o) => o.svcOrderId),
    amount: round2(orders.reduce((s, o) => s + o.orderAmount, 0)),
    paid: false,
  };
  sb.state.shipments[shipment.id] = shipment;
  for (const order of orders) {
    order.shipmentOrderId = shipment.id;
    setStatus(sb, order, OrderStatus.Unpaid);
  }
  return shipment;
}

export function ownShipment(sb: Sandbox, openId: string, id: string): SandboxShipment | undefined {
  const s = sb.state.shipments[id];
  return s?.openId === openId ? s : undefined;
}

export function shipmentOrders(sb: Sandbox, shipment: SandboxShipment): SandboxOrder[] {
  return shipment.orderIds
    .map((id) => sb.state.orders[id])
    .filter((o): o is SandboxOrder => o !== undefined);
}

/** What a payment would take from the balance: sandbox orders (isSandbox 1) cost nothing. */
export function chargeFor(orders: readonly SandboxOrder[]): number {
  return round2(orders.filter((o) => !o.isSandbox).reduce((s, o) => s + o.orderAmount, 0));
}

/**
 * saveGenerateParentOrder: the payment id, the same on every call within its pay window; a new
 * one once the window is over while the shipment is still unpaid (payWindow.ts).
 */
export function generateParentOrder(
  sb: Sandbox,
  account: SandboxAccount,
  shipment: SandboxShipment,
): Record<string, unknown> {
  const orders = shipmentOrders(sb, shipment);
  const payable =
    !shipment.paid && orders.some((o) => o.status === OrderStatus.Unpaid && !isPaid(o));
  ensurePayId(sb, shipment, payable);
  const products = round2(orders.reduce((s, o) => s + o.productAmount, 0));
  const freight = round2(orders.reduce((s, o) => s + o.postageAmount, 0));
  const charge = shipment.paid
    ? 0
    : chargeFor(orders.filter((o) => o.status === OrderStatus.Unpaid));
  return {
    orderMoney: shipment.amount,
    payExpireTime: utcDate(shipment.payExpiresAt ?? sb.now()),
    payId: shipment.payId,
    result: true,
    submitSuccess: true,
    unMatchOrderCodes: [],
    successOrders: orders.map((o) => o.svcOrderId),
    unMatchProductCodes: [],
    paymentInformation: {
      actualPayment: shipment.amount,
      balanceDeduction: charge,
      billAmount: shipment.amount,
      canDeduct: account.balance.amount >= charge,
      commodityDiscount: 0,
      commodityTotalAmount: products,
      couponAmount: 0,
      freight,
      iossAmount: 0,
      iossNumber: null,
      iossTaxHandlingFee: 0,
      iossTaxes: 0,
      iossType: null,
      orderOriginalAmount: shipment.amount,
      orderProductAmount: products,
      payableAmount: charge,
      postageDiscount: 0,
      serviceFee: 0,
    },
    interceptOrders: [],
  };
}

/**
 * Takes the orders' amount from the balance (1604000 when it is short) and marks them paid:
 * UNSHIPPED with subStatus PENDING.
 */
export function payOrders(
  sb: Sandbox,
  account: SandboxAccount,
  orders: readonly SandboxOrder[],
): void {
  const charge = chargeFor(orders);
  if (account.balance.amount < charge) {
    throw new SandboxError(
      SupplierCode.InsufficientBalance,
      `Balance insufficient: ${charge.toFixed(2)} USD needed, ${account.balance.amount.toFixed(2)} USD available`,
    );
  }
  account.balance.amount = round2(account.balance.amount - charge);
  const now = sb.now();
  for (const order of orders) {
    order.paidAt = now;
    setStatus(sb, order, OrderStatus.Unshipped, UnshippedSubStatus.Pending);
    splitAtPayment(sb, order);
  }
  for (const shipment of new Set(orders.map((o) => o.shipmentOrderId))) {
    const s = shipment === undefined ? undefined : sb.state.shipments[shipment];
    if (s && shipmentOrders(sb, s).every((o) => o.paidAt !== undefined)) s.paid = true;
  }
  sb.count(account.openId, (s) => (s.payments += 1));
}
