/** Cancelling before payment: remove what was created at the supplier where the API allows it. */
import { patched, sleep } from '@temporalio/workflow';
import { Stage } from '../../client/definitions.js';
import type { Activities } from '../activities.js';
import { backoff } from '../failures.js';
import type { Order } from '../order.js';
import { lookUpOrder } from './lookup.js';
import { supplierStep } from './supplierStep.js';

/**
 * Patch id (docs/changing-workflows.md; belongs with the others in ../versions.ts): a cancel while
 * the create's outcome is unknown looks for the order the lost create may have made, to delete it.
 */
export const CANCEL_FINDS_UNANSWERED_CREATE = 'cancel-finds-unanswered-create-2026-11';

export async function cancelOrder(o: Order, acts: Activities, reason: string): Promise<void> {
  const svcOrderId =
    o.status.svcOrderId ??
    (o.unknownOutcome()?.step === 'createOrderV3' && patched(CANCEL_FINDS_UNANSWERED_CREATE)
      ? await createdUnanswered(o, acts)
      : undefined);
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

/**
 * The order an unanswered create made, if the supplier shows it before its view had time to catch
 * up (as the step itself would have looked). Never stops for a person: the cancel is decided.
 */
async function createdUnanswered(o: Order, acts: Activities): Promise<string | undefined> {
  const since = Date.parse(o.unknownOutcome()!.since);
  for (let attempt = 1; ; attempt++) {
    const askedAt = new Date().getTime();
    const found = await supplierStep(o, {
      name: 'getOrderDetailBatch',
      send: () => lookUpOrder(o, acts),
      expected: () => true,
      cancellable: false,
    });
    if (found.ok && found.value) {
      o.outcomeSettled(true);
      o.note(`found ${found.value.svcOrderId} at the supplier after an unanswered create`);
      return found.value.svcOrderId;
    }
    if (!found.ok || askedAt - since >= o.supplierLagMs) {
      o.note(
        `createOrderV3 was unanswered and order ${o.status.orderNumber} was not found at the supplier${found.ok ? '' : ` (${found.failure.details.message})`}; if it shows there, delete it`,
      );
      return undefined;
    }
    await sleep(Math.min(backoff(attempt), Math.max(1_000, since + o.supplierLagMs - askedAt)));
  }
}
