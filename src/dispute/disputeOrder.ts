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
 * Disputes started before the reconciling steps run ./v1, before dispute-adopt ./v2.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  patched,
  setHandler,
  sleep,
} from '@temporalio/workflow';
import type { DisputeLine, DisputeSummary } from './activities.js';
import { cancelUpdate, resumeUpdate, type CancelInput } from '../order/contract.js';
import {
  disputeStatusQuery,
  type DisputeInput,
  type DisputeOutcome,
  type DisputeStatus,
} from './contract.js';
import type { FailureInfo } from '../supplier/failureDetails.js';
import {
  DisputeStatus as SupplierDisputeStatus,
  ExpectType,
  FinallyDeal,
  RefundType,
} from '../supplier/api/constants.js';
import { activities } from '../durable/activityProxies.js';
import { DisputeCancelled, DisputeCase, type DisputeCarry } from './disputeCase.js';
import { entryOf, matchCreated, type DisputeId, type Match } from './disputeMatch.js';
import { backoff } from '../durable/failures.js';
import { shouldContinueAsNew } from '../durable/longRunning.js';
import { supplierCall } from '../durable/supplierStep.js';
import { disputeOrderV1 } from '../frozen/v1/disputeOrder.js';
import { disputeOrderV2 } from '../frozen/v2/disputeOrder.js';
import { Patch } from '../durable/versions.js';

const OUTCOMES: Record<number, DisputeOutcome['result']> = {
  [FinallyDeal.Refund]: 'refund',
  [FinallyDeal.Reissue]: 'reissue',
  [FinallyDeal.Reject]: 'reject',
};

/** An update refused by its validator. */
const refused = (message: string) =>
  ApplicationFailure.create({ type: 'ActionRefused', message, nonRetryable: true });

const now = () => new Date().getTime();

export async function disputeOrder(
  input: DisputeInput,
  carried?: DisputeCarry,
): Promise<DisputeStatus> {
  // Decided once, at the start: a dispute keeps the code it started with (a continued run is new).
  if (carried === undefined) {
    if (!patched(Patch.ReconcilingSteps)) return disputeOrderV1(input);
    if (!patched(Patch.DisputeAdopt)) return disputeOrderV2(input);
  }
  const d = new DisputeCase(input, carried);
  const { supplier, supplierOnce } = activities();
  const orderId = input.svcOrderId;
  const lagSeconds = Math.round(d.supplierLagMs / 1000);

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

  const listDisputes = async () =>
    (
      await supplierCall(d, {
        name: 'getDisputeList',
        send: () => supplier.getDisputeList(orderId),
      })
    ).value;

  let next: DisputeCarry | undefined;
  try {
    const id = carried?.disputeId ?? (await open());
    next = await follow(id);
  } catch (err) {
    if (!(err instanceof DisputeCancelled)) {
      // Every supplier call is caught by its step; anything else is a bug that fails the
      // workflow task (retried by Temporal once a fixed worker runs it), never the dispute.
      throw new Error(`unexpected failure in disputeOrder: ${String(err)}`);
    }
    await cancel();
  }
  if (next !== undefined) return continueAsNew<typeof disputeOrder>(input, next);
  d.answerAll(`the dispute is ${d.stage}`, false);
  await d.storeEventsDelivered();
  await condition(allHandlersFinished);
  return d.status;

  async function open(): Promise<DisputeId> {
    await d.enter('OPENING');
    const id = await createDispute();
    await d.enter('OPEN');
    return id;
  }

  /**
   * The supplier pushes no dispute events: ask now and then until it is settled. Returns what to
   * carry when it is time to continue as new.
   */
  async function follow(id: DisputeId): Promise<DisputeCarry | undefined> {
    for (;;) {
      await condition(() => d.cancelAsked(), input.checkEverySeconds * 1000);
      d.checkCancel();
      const seen = entryOf(await listDisputes(), id);
      if (seen && settled(seen)) {
        d.settled(outcomeOf(seen));
        await d.enter(seen.status === SupplierDisputeStatus.Cancelled ? 'CANCELLED' : 'RESOLVED');
        return undefined;
      }
      if (shouldContinueAsNew(input.historyLimit)) {
        const carry = d.carryOver();
        if (carry !== undefined) return carry;
      }
    }
  }

  async function createDispute(): Promise<DisputeId> {
    const offered = await supplierCall(d, {
      name: 'disputeProducts',
      send: () => supplier.disputeProducts(orderId),
    });
    const lines = chooseLines(input, offered.value);
    if (lines === undefined) {
      await d.needsAttention(
        { step: 'disputeProducts', message: 'a line asked for cannot be disputed' },
        'cancel, and ask again with lines the supplier offers',
      );
      return createDispute();
    }
    const { value: terms } = await supplierCall(d, {
      name: 'disputeConfirmInfo',
      send: () => supplier.disputeConfirmInfo({ orderId, lines }),
    });
    const reason = terms.reasons.find((r) => r.id === input.reasonId) ?? terms.reasons[0];
    if (!reason) {
      await d.needsAttention(
        { step: 'disputeConfirmInfo', message: 'the supplier offers no dispute reason' },
        'resume to ask for the reasons again, or cancel',
      );
      return createDispute();
    }
    d.chose(
      reason.name,
      lines.reduce((sum, l) => sum + l.price * l.quantity, 0),
    );
    const created = await supplierCall<{ requestId?: string } | Match>(d, {
      name: 'createDispute',
      send: async () => {
        d.creating({
          businessDisputeId: input.businessDisputeId,
          reason: reason.name,
          lineItemIds: lines.map((l) => l.lineItemId),
          sentAt: now(),
        });
        return supplierOnce.createDispute({
          businessDisputeId: input.businessDisputeId,
          orderId,
          disputeReasonId: reason.id,
          expectType: input.expect === 'refund' ? ExpectType.Refund : ExpectType.Reissue,
          refundType: input.refundTo === 'balance' ? RefundType.Balance : RefundType.Platform,
          messageText: input.message,
          imageUrls: input.imageUrls,
          lines,
        });
      },
      // The answer was lost: done if the order's list shows a dispute of this request.
      lookUp: async () => {
        const m = matchCreated(await supplier.getDisputeList(orderId), d.sentCreate!, now());
        return m.kind === 'none' ? { done: false } : { done: true, value: m };
      },
    });
    const found = created.value;
    if ('kind' in found && found.kind === 'one') {
      d.adopted(found.id, 'found at the supplier after the answer was lost');
      return found.id;
    }
    return adopt('requestId' in found ? found.requestId : undefined);
  }

  /** The create is done: its dispute is the one the list shows for it, once the list caught up. */
  async function adopt(requestId: string | undefined): Promise<DisputeId> {
    for (;;) {
      const m = await listedMatch();
      if (m.kind === 'one') {
        d.adopted(m.id, 'listed by the supplier');
        return m.id;
      }
      await d.needsAttention(
        unmatched(m, requestId),
        "find this request's dispute in the supplier's console; resume to look again, or cancel",
      );
    }
  }

  /** Reads the list until it shows this request's dispute, for at most the supplier's lag. */
  async function listedMatch(): Promise<Match> {
    const since = now();
    d.waitFor(
      `the supplier to list the dispute it opened (its list may trail by up to ${lagSeconds} s)`,
    );
    for (let attempt = 1; ; attempt++) {
      const m = matchCreated(await listDisputes(), d.sentCreate!, now());
      if (m.kind !== 'none' || now() - since >= d.supplierLagMs) {
        d.doneWaiting();
        return m;
      }
      await sleep(Math.min(backoff(attempt), Math.max(1_000, since + d.supplierLagMs - now())));
    }
  }

  function unmatched(m: Exclude<Match, { kind: 'one' }>, requestId?: string): FailureInfo {
    return {
      step: 'createDispute',
      message:
        m.kind === 'none'
          ? `the supplier accepted createDispute, but after ${lagSeconds} s its dispute list shows no dispute of this request`
          : `the order's dispute list shows ${m.ids.length} disputes that may be this request's (${m.ids.join(', ')}): cannot tell which`,
      ...(requestId !== undefined && { requestId }),
    };
  }

  /** The cancel path: cancel the dispute at the supplier if it is open there. */
  async function cancel(): Promise<void> {
    d.startFinishing();
    d.answerAll('the dispute is being cancelled', false, 'resume');
    const reason = d.cancelReason();
    const ended = await cancelAtSupplier();
    if (ended && ended.status !== SupplierDisputeStatus.Cancelled) {
      // It had been settled at the supplier before the cancel reached it: that is how it ends.
      d.settled(outcomeOf(ended));
      await d.enter('RESOLVED', `cancel asked (${reason}); the dispute had already been settled`);
      d.answerAll('the dispute had already been settled at the supplier', false, 'cancel');
    } else {
      await d.enter('CANCELLED', reason);
      d.answerAll('dispute cancelled', true, 'cancel');
    }
  }

  /**
   * Its id may be unknown (the cancel came while createDispute was on its way, or before the list
   * showed it): then it is looked for as after a create. Returns the dispute if it had already
   * ended instead.
   */
  async function cancelAtSupplier(): Promise<DisputeSummary | undefined> {
    const disputeId = d.disputeId ?? (await idForCancel());
    if (disputeId === undefined) return undefined;
    const found = entryOf(await listDisputes(), disputeId);
    if (found && settled(found)) return found;
    await supplierCall(d, {
      name: 'cancelDispute',
      send: () => supplierOnce.cancelDispute({ orderId, disputeId }),
      // The answer was lost: cancelled already if the supplier no longer shows it open.
      lookUp: async () => {
        const seen = entryOf(await supplier.getDisputeList(orderId), disputeId);
        return seen !== undefined && settled(seen)
          ? { done: true, value: undefined }
          : { done: false };
      },
      cancellable: false,
    });
    return undefined;
  }

  async function idForCancel(): Promise<DisputeId | undefined> {
    if (d.sentCreate === undefined) return undefined;
    const m = await listedMatch();
    if (m.kind === 'one') {
      d.adopted(m.id, 'listed by the supplier');
      return m.id;
    }
    d.note(`nothing cancelled at the supplier: ${unmatched(m).message}`);
    return undefined;
  }
}

function settled(x: DisputeSummary): boolean {
  return (
    x.status === SupplierDisputeStatus.Completed ||
    x.status === SupplierDisputeStatus.Cancelled ||
    x.finallyDeal !== undefined
  );
}

function outcomeOf(x: DisputeSummary): DisputeOutcome | undefined {
  const result = x.finallyDeal === undefined ? undefined : OUTCOMES[x.finallyDeal];
  if (!result) return undefined;
  return {
    result,
    ...(x.money !== undefined && { money: x.money }),
    ...(x.resendOrderCode !== undefined && { resendOrderCode: x.resendOrderCode }),
  };
}

/**
 * The lines asked for, priced by the supplier; every disputable unit when none were named;
 * undefined when a line asked for cannot be disputed.
 */
function chooseLines(
  input: DisputeInput,
  offered: { lineItemId: string; price: number; quantity: number; canChoose: boolean }[],
): DisputeLine[] | undefined {
  const open = offered.filter((l) => l.canChoose && l.quantity > 0);
  if (input.lines.length === 0)
    return open.map((l) => ({ lineItemId: l.lineItemId, quantity: l.quantity, price: l.price }));
  const chosen: DisputeLine[] = [];
  for (const want of input.lines) {
    const line = open.find((l) => l.lineItemId === want.lineItemId);
    if (!line) return undefined;
    chosen.push({
      lineItemId: line.lineItemId,
      quantity: Math.min(want.quantity, line.quantity),
      price: line.price,
    });
  }
  return chosen;
}
