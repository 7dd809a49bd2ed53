/**
 * Which of the supplier's answers is which tracked order. The supplier names an order by its
 * svcOrderCode, svcOrderId and orderId, and by the caller's order number (orderNum); it leaves out
 * ids it does not know. An order workflow stored one supplier id — whichever its create answered,
 * or whichever the look-up that found it after an unanswered create returned — and its order
 * number. Every supplier id is tried against the stored id, then the order number against
 * orderNum. Pure functions, sandbox-safe.
 */
import type { OrderSnapshot } from '../order/lookupActivities.js';
import type { TrackedOrder } from './contract.js';
import { Stage } from '../order/contract.js';

/**
 * A split order is asked about parcel by parcel: one entry per parcel code on its way, each told
 * to the order's workflow. A parcel counts as awaiting shipment, so that each of its own steps is
 * news (the order's stage is its first parcel's).
 */
export function byParcel(orders: readonly TrackedOrder[]): TrackedOrder[] {
  return orders.flatMap((o) =>
    (o.parcelCodes ?? []).length === 0
      ? [o]
      : o.parcelCodes!.map((code) => ({
          workflowId: `${o.workflowId}#${code}`,
          signalTo: o.workflowId,
          svcOrderId: code,
          stage: o.stage === Stage.DELIVERED ? Stage.DELIVERED : Stage.AWAITING_SHIPMENT,
        })),
  );
}

/** The supplier's own ids of one order, each once. */
export function supplierIds(snapshot: OrderSnapshot): string[] {
  const ids = [snapshot.svcOrderCode, snapshot.svcOrderId, snapshot.orderId];
  return [...new Set(ids.filter((id): id is string => id !== undefined && id !== ''))];
}

/** The id the sweep asks the supplier with first: the stored supplier id, else the order number. */
export function askKey(order: TrackedOrder): string {
  return order.svcOrderId ?? order.orderNumber!;
}

/** Whether asking by the order number could find what asking by `askKey` did not. */
export function canAskByNumber(order: TrackedOrder): boolean {
  return order.orderNumber !== undefined && askKey(order) !== order.orderNumber;
}

/** Each order's answer among `snapshots`, by workflow id; orders without one are left out. */
export function matchAnswers(
  orders: readonly TrackedOrder[],
  snapshots: readonly OrderSnapshot[],
): Map<string, OrderSnapshot> {
  const byId = new Map<string, OrderSnapshot>();
  const byNumber = new Map<string, OrderSnapshot>();
  for (const snapshot of snapshots) {
    for (const id of supplierIds(snapshot)) if (!byId.has(id)) byId.set(id, snapshot);
    if (snapshot.orderNumber !== undefined && !byNumber.has(snapshot.orderNumber)) {
      byNumber.set(snapshot.orderNumber, snapshot);
    }
  }
  const matched = new Map<string, OrderSnapshot>();
  for (const order of orders) {
    const found =
      (order.svcOrderId === undefined ? undefined : byId.get(order.svcOrderId)) ??
      (order.orderNumber === undefined ? undefined : byNumber.get(order.orderNumber));
    if (found !== undefined) matched.set(order.workflowId, found);
  }
  return matched;
}

/** The proof-of-delivery list among `proofs` (keyed by the id the supplier gave) for `snapshot`. */
export function proofOf(
  snapshot: OrderSnapshot,
  proofs: Readonly<Record<string, string[]>>,
): string[] | undefined {
  for (const id of supplierIds(snapshot)) {
    if (Object.hasOwn(proofs, id)) return proofs[id];
  }
  return undefined;
}
