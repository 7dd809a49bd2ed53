/** An order the tracking sweeper flags: the supplier has gone quiet about it (or a parcel of it). */
import { Stage, type StaleNews } from '../contract.js';
import type { Order } from '../order.js';

/** Where the order waits for the supplier's news by itself, and the sweeper may flag it. */
export const STALE_STAGES: readonly Stage[] = [Stage.AWAITING_SHIPMENT, Stage.SHIPPED];

/**
 * The supplier no longer lists the order, or its status has not moved for too long: a person
 * looks into it. Resume looks at the supplier again (the sweeper flags it anew only once the
 * limit has passed again); a dispute is the way out for an order that will not arrive. News from
 * the supplier (a webhook) ends the wait by itself.
 */
export async function flaggedStale(o: Order, stale: StaleNews): Promise<void> {
  const seen = o.supplier.version;
  o.view.enter(Stage.NEEDS_ATTENTION, stale.note);
  o.view.failed({ step: 'tracking', message: stale.note });
  for (;;) {
    const action = await o.waits.at(
      Stage.NEEDS_ATTENTION,
      'resume to look at the supplier again, or open a dispute',
      ['resume'],
      { until: () => o.supplier.version !== seen },
    );
    if (action !== undefined) {
      o.actions.answer(action, 'following the supplier again');
      return;
    }
    if (o.supplier.version !== seen) return;
  }
}
