/** The supplier's own view of the order: what settles a call whose outcome was unknown. */

import { Patch } from '../../durable/versions.js';
import type { OrderSnapshot } from '../lookupActivities.js';
import { OrderStatus, reachedStatus } from '../../supplier/api/constants.js';
import type { Activities } from '../../durable/activityProxies.js';
import type { Order } from '../order.js';
import type { Seen } from '../../durable/supplierStep.js';
import { has } from '../../durable/patches.js';

/** The supplier's order for this order (by svc order id when known, else by order number). */
export async function lookUpOrder(o: Order, acts: Activities): Promise<OrderSnapshot | undefined> {
  const key = o.view.status.svcOrderId ?? o.view.status.orderNumber;
  return ownOrder(o, await acts.batch.getOrderDetailBatch([key]));
}

/** The order among the supplier's answer: by its svc order id when known, else its number. */
export function ownOrder(o: Order, shown: readonly OrderSnapshot[]): OrderSnapshot | undefined {
  const svcOrderId = o.view.status.svcOrderId;
  return shown.find((s) =>
    svcOrderId !== undefined
      ? s.svcOrderId === svcOrderId || s.svcOrderCode === svcOrderId
      : s.orderNumber === o.view.status.orderNumber,
  );
}

/**
 * Whether the order is at or past `status`, as the supplier shows it or as its sweeps already
 * told (a swept SHIPPED proves the payment even when the query lags). A webhook's word alone
 * proves nothing: orders before PushesConfirmed took it as proof.
 */
export async function orderReached(
  o: Order,
  acts: Activities,
  status: OrderStatus,
): Promise<Seen<OrderSnapshot | undefined>> {
  // A webhook's status is no proof: only the supplier's own answers (sweeps, look-ups) are.
  if (
    reachedStatus(o.supplier.news.orderStatus, status) &&
    !(o.supplier.statusFromPush && has(Patch.PushesConfirmed))
  ) {
    return {
      done: true,
      value: undefined,
      note: `the supplier reported ${o.supplier.news.orderStatus}`,
    };
  }
  const now = await lookUpOrder(o, acts);
  return reachedStatus(now?.orderStatus, status)
    ? { done: true, value: now, note: `the supplier shows ${now?.orderStatus}` }
    : { done: false };
}

/**
 * The orders the supplier split this one into, once it no longer lists the order itself: its
 * order number under other codes (ORDERSPLIT at payment keeps the number, not the id). Undefined
 * while the order itself is listed, or nothing of its number is.
 */
export async function splitChildren(
  o: Order,
  acts: Activities,
): Promise<OrderSnapshot[] | undefined> {
  const own = o.view.status.svcOrderId;
  const number = o.view.status.orderNumber;
  if (own === undefined) return undefined;
  const ofNumber = (await acts.batch.getOrderDetailBatch([number])).filter(
    (s) => s.orderNumber === number,
  );
  if (ofNumber.length === 0 || ofNumber.some((s) => s.svcOrderId === own || s.svcOrderCode === own))
    return undefined;
  return ofNumber;
}

/** Paid: UNSHIPPED (PENDING or PROCESSING alike) or any later status. */
export const PAID_STATUS = OrderStatus.Unshipped;
