/**
 * `disputeOrder`: disputeProducts → disputeConfirmInfo → createDispute → follow the result. The
 * businessDisputeId comes from the caller and names the workflow, so a repeated request does not
 * open a second dispute; createDispute goes through the reconciling supplier step, so a lost
 * answer is settled by the order's dispute list before anything is sent again. The dispute is
 * adopted only when the list shows one that is this request's (disputeMatch.ts), never the
 * list's first or any open one; polling needs that matched id. While it follows the dispute it
 * continues as new before its history gets heavy, carrying its state and its store events. The
 * order's workflow, if still open, hears every change. A cancel cancels this request's dispute at
 * the supplier if it is open there, even when the create's answer never came.
 * Disputes started before the reconciling steps run ../frozen/v1, before dispute-adopt ../frozen/v2
 * (src/workflows.ts sends them there). The steps
 * themselves are in disputeSteps.ts; the dispute's state is one DisputeCase (disputeCase.ts).
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  setHandler,
} from '@temporalio/workflow';
import { cancelUpdate, resumeUpdate, type CancelInput } from '../order/contract.js';
import { disputeStatusQuery, type DisputeInput, type DisputeStatus } from './contract.js';
import { activities } from '../durable/activityProxies.js';
import { DisputeCancelled, DisputeCase, type DisputeCarry } from './disputeCase.js';
import { endCancelled, follow, open, type DisputeRun } from './disputeSteps.js';

/** An update refused by its validator. */
const refused = (message: string) =>
  ApplicationFailure.create({ type: 'ActionRefused', message, nonRetryable: true });

export async function disputeOrder(
  input: DisputeInput,
  carried?: DisputeCarry,
): Promise<DisputeStatus> {
  const d = new DisputeCase(input, carried);
  const { supplier, supplierOnce } = activities();
  const r: DisputeRun = {
    d,
    input,
    supplier,
    supplierOnce,
    orderId: input.svcOrderId,
    lagSeconds: Math.round(d.supplierLagMs / 1000),
  };

  setHandler(disputeStatusQuery, () => d.status);
  setHandler(resumeUpdate, (resume) => d.request('resume', resume), {
    validator: (_resume) => {
      if (!d.acceptsResume) throw refused(`the dispute is ${d.stage}: nothing to resume`);
    },
  });
  setHandler(cancelUpdate, (cancel) => d.request('cancel', cancel), {
    validator: (cancel: CancelInput) => {
      if (d.stage === 'RESOLVED' || d.stage === 'CANCELLED') {
        throw refused(`the dispute is ${d.stage}`);
      }
      if (typeof cancel.reason !== 'string' || cancel.reason.trim() === '') {
        throw refused('a reason is required');
      }
    },
  });

  let next: DisputeCarry | undefined;
  try {
    const id = carried?.disputeId ?? (await open(r));
    next = await follow(r, id);
  } catch (err) {
    if (!(err instanceof DisputeCancelled)) {
      // Every supplier call is caught by its step; anything else is a bug that fails the
      // workflow task (retried by Temporal once a fixed worker runs it), never the dispute.
      throw new Error(`unexpected failure in disputeOrder: ${String(err)}`);
    }
    await endCancelled(r);
  }
  if (next !== undefined) return continueAsNew<typeof disputeOrder>(input, next);
  d.answerAll(`the dispute is ${d.stage}`, false);
  await d.storeEventsDelivered();
  await condition(allHandlersFinished);
  return d.status;
}
