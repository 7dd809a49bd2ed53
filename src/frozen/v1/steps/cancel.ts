/** Cancelling before payment: remove what was created at the supplier where the API allows it. */
import { Stage } from '../../common/contracts.js';
import type { Activities } from '../activities.js';
import { ActivityFailure } from '@temporalio/workflow';
import type { FrozenOrderV1 } from '../order.js';
import { failureOf } from './wait.js';

export async function cancelOrder(
  o: FrozenOrderV1,
  acts: Activities,
  reason: string,
): Promise<void> {
  const svcOrderId = o.status.svcOrderId;
  if (svcOrderId !== undefined && !o.confirmed) {
    try {
      await acts.supplier.deleteOrder(svcOrderId);
      o.note(`deleted ${svcOrderId} at the supplier`);
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      o.note(
        `could not delete ${svcOrderId} at the supplier: ${failureOf('deleteOrder', err).message}`,
      );
    }
  } else if (svcOrderId !== undefined) {
    // deleteOrder is refused after confirmation; an unpaid parent order lapses at payExpireTime.
    o.note(`${svcOrderId} stays unpaid at the supplier (confirmed orders cannot be deleted)`);
  }
  o.enter(Stage.CANCELLED, reason);
  if (o.pendingCancel) o.answer(o.pendingCancel, 'cancelled');
}
