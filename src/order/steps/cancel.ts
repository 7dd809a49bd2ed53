/** Cancelling before payment: remove what was created at the supplier where the API allows it. */

import type { Activities } from '../../durable/activityProxies.js';
import type { Order } from '../order.js';
import { ownOrder } from './lookup.js';
import { settleOutcome, supplierStep } from '../../durable/supplierStep.js';
import { Patch } from '../../durable/versions.js';
import { has } from '../../durable/patches.js';

export async function cancelOrder(o: Order, acts: Activities, reason: string): Promise<void> {
  const own = o.view.status.svcOrderId;
  const made =
    own !== undefined
      ? [own]
      : o.waits.unknownOutcome()?.step === CREATE_STEP
        ? await createdUnanswered(o, acts)
        : [];
  for (const svcOrderId of made) {
    if (!o.money.confirmed) {
      // Deleting twice is harmless; a refusal is noted, the order is cancelled here either way.
      const deleted = await supplierStep(o.waits, {
        name: 'deleteOrder',
        send: () => acts.supplier.deleteOrder(svcOrderId),
        expected: () => true,
        cancellable: false,
      });
      o.view.note(
        deleted.ok
          ? `deleted ${svcOrderId} at the supplier`
          : `could not delete ${svcOrderId} at the supplier: ${deleted.failure.details.message}`,
      );
    } else {
      // deleteOrder is refused after confirmation; an unpaid parent order lapses at payExpireTime.
      o.view.note(
        `${svcOrderId} stays unpaid at the supplier (confirmed orders cannot be deleted)`,
      );
    }
  }
  o.cancelled(reason, 'operator');
  if (o.actions.pendingCancel) o.actions.answer(o.actions.pendingCancel, 'cancelled');
}

/**
 * The order an unanswered create made, if the supplier shows it within its lag window (as the
 * create step itself would look): every order of its number when the supplier split it before the
 * order learned its code. Never stops for a person: the cancel is decided.
 */
async function createdUnanswered(o: Order, acts: Activities): Promise<string[]> {
  const number = o.view.status.orderNumber;
  const seen = await settleOutcome<string[]>(
    o.waits,
    CREATE_STEP,
    async () => {
      const shown = await acts.batch.getOrderDetailBatch([number]);
      const parts = shown.filter((s) => s.orderNumber === number);
      if (parts.length > 1 && has(Patch.SplitBeforeCreate)) {
        return { done: true, value: parts.map((s) => s.svcOrderId) };
      }
      const found = ownOrder(o, shown);
      return found ? { done: true, value: [found.svcOrderId] } : { done: false };
    },
    { askPerson: false },
  );
  if (seen.done) {
    o.waits.outcomeSettled(true);
    o.view.note(`found ${seen.value.join(', ')} at the supplier after an unanswered create`);
    return seen.value;
  }
  o.view.note(
    `createOrderV3 was unanswered and order ${o.view.status.orderNumber} was not found at the supplier` +
      ('unsettled' in seen ? ` (${seen.unsettled.message})` : '') +
      '; if it shows there, delete it',
  );
  return [];
}

/** The step whose unknown outcome may have left an order at the supplier. */
const CREATE_STEP = 'createOrderV3';
