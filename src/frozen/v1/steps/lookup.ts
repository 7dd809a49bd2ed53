/** Finding what the supplier already did, after a lost response or a duplicate-order answer. */
import type { OrderSnapshot } from '../../../order/lookupActivities.js';
import type { Activities } from '../activities.js';
import type { FrozenOrderV1 } from '../order.js';

/** The supplier's order for this order (by svc order id when known, else by order number). */
export async function lookUpOrder(
  o: FrozenOrderV1,
  acts: Activities,
): Promise<OrderSnapshot | undefined> {
  const key = o.status.svcOrderId ?? o.status.orderNumber;
  const found = await acts.batch.getOrderDetailBatch([key]);
  const svcOrderId = o.status.svcOrderId;
  return found.find((s) =>
    svcOrderId !== undefined
      ? s.svcOrderId === svcOrderId || s.svcOrderCode === svcOrderId
      : s.orderNumber === o.status.orderNumber,
  );
}

const PROGRESS = ['CREATED', 'IN_CART', 'UNPAID', 'UNSHIPPED', 'SHIPPED', 'DELIVERED'];

/** Whether the supplier's status is at or past `status` on the way to delivery. */
export function reached(orderStatus: string | undefined, status: string): boolean {
  if (orderStatus === undefined) return false;
  const at = PROGRESS.indexOf(orderStatus);
  return at >= 0 && at >= PROGRESS.indexOf(status);
}

/**
 * Unanswered calls in a row that a step reconciles and retries on its own; past this, the
 * supplier is not well and a person should look (NEEDS_ATTENTION, then resume).
 */
export const MAX_UNANSWERED_IN_A_ROW = 5;
