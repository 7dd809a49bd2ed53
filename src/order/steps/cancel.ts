/** Cancelling before payment: remove what was created at the supplier where the API allows it. */
import type { Activities } from '../../durable/activityProxies.js';
import type { Order } from '../order.js';
import { lookUpOrder } from './lookup.js';
import { settleOutcome, supplierStep } from '../../durable/supplierStep.js';

export async function cancelOrder(o: Order, acts: Activities, reason: string): Promise<void> {
  const svcOrderId =
    o.status.svcOrderId ??
    (o.unknownOutcome()?.step === CREATE_STEP ? await createdUnanswered(o, acts) : undefined);
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
  o.cancelled(reason, 'operator');
  if (o.pendingCancel) o.answer(o.pendingCancel, 'cancelled');
}

/**
 * The order an unanswered create made, if the supplier shows it within its lag window (as the
 * create step itself would look). Never stops for a person: the cancel is decided.
 */
async function createdUnanswered(o: Order, acts: Activities): Promise<string | undefined> {
  const seen = await settleOutcome(
    o,
    CREATE_STEP,
    async () => {
      const found = await lookUpOrder(o, acts);
      return found ? { done: true, value: found.svcOrderId } : { done: false };
    },
    { askPerson: false },
  );
  if (seen.done) {
    o.outcomeSettled(true);
    o.note(`found ${seen.value} at the supplier after an unanswered create`);
    return seen.value;
  }
  o.note(
    `createOrderV3 was unanswered and order ${o.status.orderNumber} was not found at the supplier` +
      ('unsettled' in seen ? ` (${seen.unsettled.message})` : '') +
      '; if it shows there, delete it',
  );
  return undefined;
}

/** The step whose unknown outcome may have left an order at the supplier. */
const CREATE_STEP = 'createOrderV3';
