/**
 * `disputeOrder` as it was on the reconciling steps before `dispute-adopt-2026-11`: after the
 * create it adopted the order's open dispute (or the list's first), and it never continued as
 * new. Frozen: disputes started before that patch finish here.
 */
import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  setHandler,
} from '@temporalio/workflow';
import type { DisputeLine, DisputeSummary } from '../../dispute/activities.js';
import type { CancelInput, DisputeOutcome } from '../../order/contract.js';
import type { DisputeInput, DisputeStatus } from '../../dispute/contract.js';
import { activities } from '../common/activityProxies.js';
import { cancelUpdate, disputeStatusQuery, resumeUpdate } from '../common/contracts.js';
import {
  DisputeStatus as SupplierDisputeStatus,
  ExpectType,
  FinallyDeal,
  RefundType,
} from '../common/supplier.js';
import { supplierCall } from '../common/supplierStep.js';
import { DisputeCancelled, DisputeCase } from './disputeCase.js';

const OUTCOMES: Record<number, DisputeOutcome['result']> = {
  [FinallyDeal.Refund]: 'refund',
  [FinallyDeal.Reissue]: 'reissue',
  [FinallyDeal.Reject]: 'reject',
};

/** An update refused by its validator. */
const refused = (message: string) =>
  ApplicationFailure.create({ type: 'ActionRefused', message, nonRetryable: true });

export async function disputeOrderV2(input: DisputeInput): Promise<DisputeStatus> {
  const d = new DisputeCase(input);
  const { supplier, supplierOnce } = activities();
  const orderId = input.svcOrderId;

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
  const openDispute = async () => openOf(await listDisputes());

  try {
    await d.enter('OPENING');
    let open = await openDispute();
    if (!open) open = await createDispute();
    d.opened(open?.disputeId);
    await d.enter('OPEN');

    // The supplier pushes no dispute events: ask now and then.
    for (;;) {
      await condition(() => d.cancelAsked(), input.checkEverySeconds * 1000);
      d.checkCancel();
      const now = (await listDisputes()).find((x) => x.disputeId === d.status.disputeId);
      if (now && settled(now)) {
        d.settled(outcomeOf(now));
        await d.enter(now.status === SupplierDisputeStatus.Cancelled ? 'CANCELLED' : 'RESOLVED');
        break;
      }
    }
  } catch (err) {
    if (!(err instanceof DisputeCancelled)) {
      // Every supplier call is caught by its step; anything else is a bug that fails the
      // workflow task (retried by Temporal once a fixed worker runs it), never the dispute.
      throw new Error(`unexpected failure in disputeOrder: ${String(err)}`);
    }
    await cancel();
  }
  d.answerAll(`the dispute is ${d.stage}`, false);
  await d.storeEventsDelivered();
  await condition(allHandlersFinished);
  return d.status;

  async function createDispute(): Promise<DisputeSummary | undefined> {
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
    d.opened(
      undefined,
      reason.name,
      lines.reduce((sum, l) => sum + l.price * l.quantity, 0),
    );
    const created = await supplierCall<DisputeSummary | undefined>(d, {
      name: 'createDispute',
      send: async () => {
        d.creating();
        await supplierOnce.createDispute({
          businessDisputeId: input.businessDisputeId,
          orderId,
          disputeReasonId: reason.id,
          expectType: input.expect === 'refund' ? ExpectType.Refund : ExpectType.Reissue,
          refundType: input.refundTo === 'balance' ? RefundType.Balance : RefundType.Platform,
          messageText: input.message,
          imageUrls: input.imageUrls,
          lines,
        });
        return undefined;
      },
      // The answer was lost: the supplier opened it if the order now has an open dispute.
      lookUp: async () => {
        const found = openOf(await supplier.getDisputeList(orderId));
        return found
          ? { done: true, value: found, note: 'found open at the supplier' }
          : { done: false };
      },
    });
    if (created.value) return created.value;
    const after = await listDisputes();
    return after.find((x) => x.status === SupplierDisputeStatus.Processing) ?? after[0];
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
   * Its id may be unknown (the cancel came while createDispute was on its way): then the order's
   * open dispute is the one. Returns the dispute if it had already ended instead.
   */
  async function cancelAtSupplier(): Promise<DisputeSummary | undefined> {
    if (!d.mayHaveDispute) return undefined;
    const list = await listDisputes();
    const known = d.status.disputeId;
    const found =
      known === undefined
        ? list.find((x) => x.status === SupplierDisputeStatus.Processing)
        : list.find((x) => x.disputeId === known);
    if (found && settled(found)) return found;
    const disputeId = found?.disputeId ?? known;
    if (disputeId === undefined) return undefined;
    d.opened(disputeId);
    await supplierCall(d, {
      name: 'cancelDispute',
      send: () => supplierOnce.cancelDispute({ orderId, disputeId }),
      // The answer was lost: cancelled already if the supplier no longer shows it open.
      lookUp: async () => {
        const now = (await supplier.getDisputeList(orderId)).find((x) => x.disputeId === disputeId);
        return now !== undefined && settled(now)
          ? { done: true, value: undefined }
          : { done: false };
      },
      cancellable: false,
    });
    return undefined;
  }
}

/** The order's dispute the supplier is still working on, if any. */
function openOf(list: DisputeSummary[]): DisputeSummary | undefined {
  return list.find((x) => x.status === SupplierDisputeStatus.Processing);
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
