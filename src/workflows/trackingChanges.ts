/**
 * The tracking sweeper's decisions, as pure functions (no activity, no clock): how ids are split
 * into supplier calls, which orders need their proof of delivery, and which orders are told what.
 * Sandbox-safe.
 */
import { Stage, type SupplierNews } from '../client/definitions.js';
import type { OrderSnapshot } from '../activities/lookups.js';
import type { TrackedOrder } from '../activities/orchestration.js';
import { endedStatus, OrderStatus } from '../supplier/api/constants.js';

/** Ids per getOrderDetailBatch, getProofOfDelivery and trackInfo call (architecture §5). */
export const IDS_PER_CALL = 100;

/** `items` in consecutive slices of at most `size`: ceil(n / size) of them. */
export function chunk<T>(items: readonly T[], size: number = IDS_PER_CALL): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`chunk size ${size}`);
  const chunks: T[][] = [];
  for (let i = 0; i < items.length; i += size) chunks.push(items.slice(i, i + size));
  return chunks;
}

/** How far a tracked order has come: the supplier's news matters only when it is further. */
const RANK: Partial<Record<Stage, number>> = {
  [Stage.PAID]: 0,
  [Stage.AWAITING_WAYBILL]: 1,
  [Stage.AWAITING_SHIPMENT]: 2,
  [Stage.SHIPPED]: 3,
  [Stage.DELIVERED]: 4,
};
const rankOf = (stage: Stage): number => RANK[stage] ?? -1;

/** Orders whose proof of delivery is worth asking for: delivered, by either side's account. */
export function needsProof(order: TrackedOrder, snapshot: OrderSnapshot | undefined): boolean {
  if (snapshot === undefined || endedStatus(snapshot.orderStatus)) return false;
  return order.stage === Stage.DELIVERED || snapshot.orderStatus === OrderStatus.Delivered;
}

/** The id of one observation: the same observation always gets the same id (idempotent). */
export function sweepMessageId(
  svcOrderId: string,
  orderStatus: string,
  proofCount: number,
): string {
  return `sweep:${svcOrderId}:${orderStatus}:${proofCount}`;
}

/**
 * What to tell an order, or undefined when the supplier says nothing its stage does not already
 * reflect: shipped while before SHIPPED, delivered while before DELIVERED, proof of delivery while
 * DELIVERED, cancelled or closed at any stage.
 */
export function newsFor(
  order: TrackedOrder,
  snapshot: OrderSnapshot | undefined,
  proof: readonly string[] | undefined,
): SupplierNews | undefined {
  const status = snapshot?.orderStatus;
  if (snapshot === undefined || status === undefined) return undefined;
  const rank = rankOf(order.stage);
  const proofOfDelivery = proof ?? [];
  const changed =
    endedStatus(status) ||
    (status === OrderStatus.Shipped && rank < rankOf(Stage.SHIPPED)) ||
    (status === OrderStatus.Delivered && rank < rankOf(Stage.DELIVERED)) ||
    (status === OrderStatus.Delivered &&
      order.stage === Stage.DELIVERED &&
      proofOfDelivery.length > 0);
  if (!changed) return undefined;
  return {
    messageId: sweepMessageId(order.svcOrderId, status, proofOfDelivery.length),
    kind: 'status',
    svcOrderId: order.svcOrderId,
    orderStatus: status,
    ...(snapshot.subStatus !== undefined && { subStatus: snapshot.subStatus }),
    ...(snapshot.logisticName !== undefined && { logisticName: snapshot.logisticName }),
    ...(snapshot.trackNumber !== undefined && { trackNumber: snapshot.trackNumber }),
    ...(snapshot.trackingUrl !== undefined && { trackingUrl: snapshot.trackingUrl }),
    ...(proofOfDelivery.length > 0 && { proofOfDelivery: [...proofOfDelivery] }),
  };
}
