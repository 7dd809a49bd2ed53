/**
 * The sandbox's orders: finding an account's order by any of its keys, pricing it from the seed,
 * evaluating its interceptions, and changing its status (which pushes the order webhook).
 * Shared by the order, payment, waybill, dispute and connection routes.
 */
import {
  OrderStatus,
  ShopLogisticsType,
  type UnshippedSubStatus,
  WebhookChange,
  WebhookTopic,
  WebhookType,
} from 'dropflow/supplier';
import { availableUnits, evaluateInterceptions } from './interceptions.js';
import { orderWebhookParams, orderWeight } from './orderView.js';
import type { SandboxHost } from './host.js';
import { findLine, postage } from './seed.js';
import type { SandboxOrder, StatusChange } from './state.js';

export const round2 = (n: number): number => Math.round(n * 100) / 100;

/** Statuses after payment: the order is paid. */
export const PAID_STATUSES: ReadonlySet<OrderStatus> = new Set([
  OrderStatus.Unshipped,
  OrderStatus.Shipped,
  OrderStatus.Delivered,
]);

export function isPaid(order: SandboxOrder): boolean {
  return PAID_STATUSES.has(order.status) || order.paidAt !== undefined;
}

/** An order is held back when it has interception reasons or its logistics line misses. */
export function isIntercepted(order: SandboxOrder): boolean {
  return order.interceptReasons.length > 0 || order.logisticsMiss;
}

/**
 * The account's order known by its svc order id, svc order code or the caller's order number.
 * Store-flow orders still awaiting a connection are invisible: the caller has no id for them yet.
 */
export function findOwnOrder(
  sb: SandboxHost,
  openId: string,
  key: string,
): SandboxOrder | undefined {
  return findOwnOrders(sb, openId, key)[0];
}

/**
 * Every order of the account known by `key`: one for an id, all the orders of an order number
 * (those split from one order share it). A split order itself is no longer listed.
 */
export function findOwnOrders(sb: SandboxHost, openId: string, key: string): SandboxOrder[] {
  const listed = (o: SandboxOrder) =>
    o.openId === openId && !o.awaitingConnection && o.splitInto === undefined;
  const direct = sb.state.orders[key];
  if (direct) return listed(direct) ? [direct] : [];
  return Object.values(sb.state.orders).filter(
    (o) => listed(o) && (o.svcOrderCode === key || o.orderNumber === key),
  );
}

/** The account's orders (all of them, including those awaiting a connection). */
export function ordersOf(sb: SandboxHost, openId: string): SandboxOrder[] {
  return Object.values(sb.state.orders).filter((o) => o.openId === openId);
}

export function destinationOf(order: SandboxOrder): string {
  const cc = order.request.shippingCountryCode;
  return typeof cc === 'string' ? cc.toUpperCase() : '';
}

/** The order's logistics line, when it serves the order's route. */
export function servingLine(order: SandboxOrder) {
  const line = findLine(order.logisticName);
  const to = destinationOf(order);
  return line && line.from.includes(order.fromCountryCode) && line.to.includes(to)
    ? line
    : undefined;
}

/** The surcharge a switch put on a logistics line's postage for an account (USD; 0 without). */
export function surchargeFor(sb: SandboxHost, openId: string, logisticName: string): number {
  return sb.state.postageSurcharges?.[openId]?.[logisticName.toLowerCase()] ?? 0;
}

/**
 * Product, postage and order amounts from the lines' prices and the line's postage for the weight,
 * plus the line's surcharge, if a switch set one.
 */
export function priceOrder(order: SandboxOrder, surchargeUsd = 0): void {
  if (order.awaitingConnection) {
    // Nothing to price before the store products name their catalogue variants.
    order.productAmount = order.postageAmount = order.orderAmount = 0;
    return;
  }
  order.productAmount = round2(order.lines.reduce((s, l) => s + l.sellPrice * l.quantity, 0));
  const line = servingLine(order);
  order.postageAmount = line ? round2(postage(line, orderWeight(order)) + surchargeUsd) : 0;
  order.orderAmount = round2(order.productAmount + order.postageAmount);
}

/** Re-runs the interception rules on the order as it is now (address, line, stock). */
export function evaluateOrder(sb: SandboxHost, order: SandboxOrder): void {
  const r = order.request;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const outcome = evaluateInterceptions(
    {
      shippingCountryCode: destinationOf(order),
      shippingZip: str(r.shippingZip),
      shippingPhone: str(r.shippingPhone),
      taxId: str(r.taxId),
      logisticName: order.logisticName,
      fromCountryCode: order.fromCountryCode,
      storageId:
        order.shopLogisticsType === ShopLogisticsType.Supplier ? undefined : order.storageId,
      lines: order.lines,
    },
    (storageId, vid) =>
      availableUnits(Object.values(sb.state.orders), storageId, vid, order.svcOrderId),
  );
  order.interceptReasons = outcome.reasons;
  order.logisticsMiss = outcome.logisticsMiss;
}

/**
 * Re-prices and re-evaluates an order whose lines changed, such as a store-flow order whose
 * products were just connected (call after filling in each line's vid and sellPrice).
 */
export function refreshOrder(sb: SandboxHost, order: SandboxOrder): void {
  priceOrder(order, surchargeFor(sb, order.openId, order.logisticName));
  evaluateOrder(sb, order);
  sb.changed();
}

/** Moves the order to a status and pushes the order topic's UPDATE message. */
export function setStatus(
  sb: SandboxHost,
  order: SandboxOrder,
  status: OrderStatus,
  subStatus?: UnshippedSubStatus,
): void {
  if (order.status === status && order.subStatus === subStatus) return;
  rememberStatus(order, sb.now());
  order.status = status;
  if (subStatus === undefined) delete order.subStatus;
  else order.subStatus = subStatus;
  sb.changed();
  sb.emit(order.openId, WebhookTopic.Order, {
    type: WebhookType.Order,
    messageType: WebhookChange.Update,
    params: orderWebhookParams(order, sb.now()),
  });
}

/** Enough for every step of an order's life; older entries are dropped. */
const HISTORY_LENGTH = 10;

/** Records the status the order is leaving now, for queries that lag behind (orderLag.ts). */
function rememberStatus(order: SandboxOrder, now: number): void {
  const left: StatusChange = { status: order.status, until: now };
  if (order.subStatus !== undefined) left.subStatus = order.subStatus;
  order.statusHistory = [...(order.statusHistory ?? []), left].slice(-HISTORY_LENGTH);
}
