/**
 * A batch call's lost answer, settled for the whole batch by one look-up (Patch.BatchLookUp).
 * The supplier carts and confirms a batch's orders in one act, so one order shown carted
 * (confirmed) means the call acted; the orders it does not show there are the ones it refused,
 * believed only once its view had time to catch up (a lagging view may show some orders late).
 * Nothing is sent again until then: none shown after the lag, the call provably did not act.
 */
import type { Activities } from '../durable/activityProxies.js';
import type { Seen } from '../durable/supplierStep.js';
import { type OrderStatus, reachedStatus } from '../supplier/api/constants.js';
import type { ReadyOrder } from './contract.js';

/** What the supplier shows of a batch call whose answer was lost. */
export interface BatchTaken {
  /** The orders the call took (in the cart, or in the shipment). */
  taken: ReadyOrder[];
  /** The orders it refused: each goes on alone (its own call shows why). */
  refused: ReadyOrder[];
}

/** The shipment of a confirmation whose answer was lost, and the orders in it. */
export interface BatchConfirmed extends BatchTaken {
  shipmentOrderId: string;
}

const ids = (orders: readonly ReadyOrder[]) => orders.map((o) => o.svcOrderId);

/**
 * Which orders of the batch the supplier shows at `status` or later. `caughtUp`: the supplier's
 * view had its lag to catch up since the answer was lost (then the orders not shown are refused).
 */
export async function takenByCall(
  acts: Activities,
  orders: readonly ReadyOrder[],
  status: OrderStatus,
  caughtUp: boolean,
): Promise<Seen<BatchTaken>> {
  const seen = await acts.batch.getOrderDetailBatch(ids(orders));
  const shown = (o: ReadyOrder) =>
    seen.some(
      (s) =>
        (s.svcOrderId === o.svcOrderId || s.svcOrderCode === o.svcOrderId) &&
        reachedStatus(s.orderStatus, status),
    );
  const taken = orders.filter(shown);
  const refused = orders.filter((o) => !shown(o));
  if (taken.length === 0 || (refused.length > 0 && !caughtUp)) return { done: false };
  return { done: true, value: { taken, refused } };
}

/**
 * The shipment of orders shown confirmed: a repeated confirmation of confirmed orders answers
 * their shipment again and confirms nothing (docs/supplier-api.md), and the shipment's own list
 * says which orders of the batch it holds. Undefined when the supplier's answers disagree.
 */
export async function confirmedShipment(
  acts: Activities,
  orders: readonly ReadyOrder[],
  shown: BatchTaken,
): Promise<BatchConfirmed | undefined> {
  const again = await acts.supplierOnce.addCartConfirmBatch(ids(shown.taken));
  const shipmentOrderId = again.shipmentOrderId;
  if (shipmentOrderId === undefined || again.intercepted.length > 0) return undefined;
  const members = new Set(await acts.supplier.ordersOfShipment(shipmentOrderId));
  if (!shown.taken.every((o) => members.has(o.svcOrderId))) return undefined;
  return {
    shipmentOrderId,
    taken: orders.filter((o) => members.has(o.svcOrderId)),
    refused: orders.filter((o) => !members.has(o.svcOrderId)),
  };
}
