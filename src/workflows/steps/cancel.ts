/** Cancelling before payment: remove what was created at the supplier where the API allows it. */
import { Stage } from '../../client/definitions.js';
import type { Activities } from '../activities.js';
import type { Order } from '../order.js';
import { supplierStep } from './supplierStep.js';

export async function cancelOrder(o: Order, acts: Activities, reason: string): Promise<void> {
  const svcOrderId = o.status.svcOrderId;
  if (svcOrderId !== undefined && !o.confirmed) {
    // Deleting twice is harmless; a refusal is noted, the order is cancelled here either way.
    const deleted = await supplierStep(o, {
      name: 'deleteOrder',
      send: () => acts.supplier.deleteOrder(svcOrderId),
      expected: () => true,
      cancellable: false,
    });
    o.note(
      deleted.ok
        ? `deleted ${svcOrderId} at the supplier`
        : `could not delete ${svcOrderId} at the supplier: ${deleted.failure.details.message}`,
    );
  } else if (svcOrderId !== undefined) {
    // deleteOrder is refused after confirmation; an unpaid parent order lapses at payExpireTime.
    o.note(`${svcOrderId} stays unpaid at the supplier (confirmed orders cannot be deleted)`);
  }
  o.enter(Stage.CANCELLED, reason);
  if (o.pendingCancel) o.answer(o.pendingCancel, 'cancelled');
}
