/**
 * Order queries (docs/supplier-api.md §7.5): list, detail, batch detail, proof of delivery.
 * Only the caller's orders are visible; store-flow orders awaiting a connection are not. With the
 * account's `batchLagMs` they show the orders as they were that long ago (orderLag.ts).
 */
import {
  getOrderDetail,
  getOrderDetailBatch,
  getProofOfDelivery,
  LISTED_ORDER_STATUSES,
  listOrders,
  OrderStatus,
  OTHER_ORDER_STATUSES,
} from 'dropflow/supplier';
import { findOwnOrder, findOwnOrders, ordersOf } from '../orderBook.js';
import { orderAsOf, queryMoment } from '../orderLag.js';
import { orderObject } from '../orderView.js';
import { paramError, type SandboxRouter } from '../routing.js';
import type { Sandbox } from '../sandbox.js';
import type { SandboxOrder } from '../state.js';

const LISTED: ReadonlySet<OrderStatus> = new Set(LISTED_ORDER_STATUSES);

/** The filter value OTHER matches every status without a filter value of its own (CLOSED). */
function matchesStatus(order: SandboxOrder, filter: string): boolean {
  return filter === OTHER_ORDER_STATUSES ? !LISTED.has(order.status) : order.status === filter;
}

/** The caller's orders for a list of keys, each once, in the order asked; unknown keys skipped. */
function lookUp(sb: Sandbox, openId: string, keys: readonly string[]): SandboxOrder[] {
  const found = new Map<string, SandboxOrder>();
  for (const key of keys) {
    for (const order of findOwnOrders(sb, openId, key)) {
      if (!found.has(order.svcOrderId)) found.set(order.svcOrderId, order);
    }
  }
  return [...found.values()];
}

/** The orders as the account's queries show them now; those not shown yet are left out. */
function asSeen(sb: Sandbox, openId: string, orders: readonly SandboxOrder[]): SandboxOrder[] {
  const moment = queryMoment(sb, openId);
  return orders.map((o) => orderAsOf(o, moment)).filter((o): o is SandboxOrder => o !== undefined);
}

const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 200;

export function registerOrderQueryRoutes(r: SandboxRouter): void {
  r.serve(listOrders, (input, account, sb) => {
    const pageNum = Math.max(1, input.pageNum ?? 1);
    const pageSize = Math.min(MAX_PAGE_SIZE, Math.max(1, input.pageSize ?? DEFAULT_PAGE_SIZE));
    // CANCELLED is the documented default of status (docs/supplier-api.md §7.5); kept here.
    const status = input.status ?? OrderStatus.Cancelled;
    const keys =
      input.orderIds === undefined
        ? undefined
        : new Set(lookUp(sb, account.openId, input.orderIds).map((o) => o.svcOrderId));
    const own = ordersOf(sb, account.openId).filter((o) => !o.awaitingConnection);
    const matching = asSeen(sb, account.openId, own)
      .filter((o) => matchesStatus(o, status))
      .filter((o) => keys === undefined || keys.has(o.svcOrderId))
      .filter(
        (o) => input.shipmentOrderId === undefined || o.shipmentOrderId === input.shipmentOrderId,
      )
      .sort((a, b) => b.createdAt - a.createdAt || b.svcOrderId.localeCompare(a.svcOrderId));
    const page = matching.slice((pageNum - 1) * pageSize, pageNum * pageSize);
    return {
      pageNum,
      pageSize,
      total: matching.length,
      list: page.map((o) => orderObject(o, 'list')),
    };
  });

  r.serve(getOrderDetail, ({ orderId, features }, account, sb) => {
    const own = findOwnOrder(sb, account.openId, orderId);
    const order = own && orderAsOf(own, queryMoment(sb, account.openId));
    // Not shown how the supplier answers an unknown id; the sandbox uses its parameter error.
    if (!order) throw paramError('orderId', `order "${orderId}" not found`);
    return orderObject(order, 'detail', features ?? []);
  });

  r.serve(getOrderDetailBatch, ({ orderIds }, account, sb) =>
    asSeen(sb, account.openId, lookUp(sb, account.openId, orderIds)).map((o) =>
      orderObject(o, 'batch'),
    ),
  );

  r.serve(getProofOfDelivery, ({ orderIds }, account, sb) =>
    asSeen(sb, account.openId, lookUp(sb, account.openId, orderIds)).map((o) => ({
      orderId: o.svcOrderId,
      proofOfDeliveryList: o.status === OrderStatus.Delivered ? o.proofOfDelivery : [],
    })),
  );
}
