/**
 * Order queries that lag behind (setting `batchLagMs`): integrations report that the supplier's
 * queries may not show an order, or its latest status, at once after the call that made it. With
 * a lag, each order is shown as it was `batchLagMs` ago: absent when created since, with the
 * status it had then, and without the payment, shipment and delivery that came later. A test
 * holds the view still at a moment (`batchViewAt`) until what it waits for has happened.
 */
import type { Sandbox } from './sandbox.js';
import type { SandboxOrder } from './state.js';

/** The moment the account's order queries show; undefined when they show the present. */
export function queryMoment(sb: Sandbox, openId: string): number | undefined {
  const { batchLagMs: lag, batchViewAt } = sb.settingsFor(openId);
  if (batchViewAt !== undefined) return batchViewAt;
  return lag > 0 ? sb.now() - lag : undefined;
}

/** The order as it was at `moment` (a copy), or undefined when it did not exist yet. */
export function orderAsOf(
  order: SandboxOrder,
  moment: number | undefined,
): SandboxOrder | undefined {
  if (moment === undefined) return order;
  if (order.createdAt > moment) return undefined;
  const then = order.statusHistory?.find((change) => change.until > moment);
  if (!then) return order;
  const past: SandboxOrder = { ...order, status: then.status };
  if (then.subStatus === undefined) delete past.subStatus;
  else past.subStatus = then.subStatus;
  const later = (at: number | undefined) => at !== undefined && at > moment;
  if (later(order.paidAt)) delete past.paidAt;
  if (later(order.processingAt)) delete past.processingAt;
  if (later(order.shippedAt)) {
    delete past.shippedAt;
    delete past.trackNumber;
    delete past.trackingProvider;
  }
  if (later(order.deliveredAt)) {
    delete past.deliveredAt;
    past.proofOfDelivery = [];
  }
  return past;
}
