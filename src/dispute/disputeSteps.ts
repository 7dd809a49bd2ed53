/**
 * The steps of a `disputeOrder` run (disputeOrder.ts): open the dispute (disputeProducts,
 * disputeConfirmInfo, createDispute, and adopting the one the supplier lists for this request),
 * follow it until it is settled, and cancel it at the supplier.
 */
import { condition, sleep } from '@temporalio/workflow';
import type { DisputeLine, DisputeSummary } from './activities.js';
import type { DisputeInput } from './contract.js';
import type { DisputeOutcome } from '../order/contract.js';
import type { FailureInfo } from '../supplier/failureDetails.js';
import {
  DisputeStatus as SupplierDisputeStatus,
  ExpectType,
  FinallyDeal,
  RefundType,
} from '../supplier/api/constants.js';
import type { Activities } from '../durable/activityProxies.js';
import type { DisputeCarry, DisputeCase } from './disputeCase.js';
import { entryOf, matchCreated, type DisputeId, type Match } from './disputeMatch.js';
import { backoff } from '../durable/failures.js';
import { shouldContinueAsNew } from '../durable/longRunning.js';
import { supplierCall } from '../durable/supplierStep.js';

/** What every step of one run works with. */
export interface DisputeRun {
  d: DisputeCase;
  input: DisputeInput;
  supplier: Activities['supplier'];
  supplierOnce: Activities['supplierOnce'];
  orderId: string;
  /** The supplier's lag, in seconds, as the messages name it. */
  lagSeconds: number;
}

const OUTCOMES: Record<number, DisputeOutcome['result']> = {
  [FinallyDeal.Refund]: 'refund',
  [FinallyDeal.Reissue]: 'reissue',
  [FinallyDeal.Reject]: 'reject',
};

const now = () => new Date().getTime();

async function listDisputes(r: DisputeRun): Promise<DisputeSummary[]> {
  const { d, supplier, orderId } = r;
  return (
    await supplierCall(d, {
      name: 'getDisputeList',
      send: () => supplier.getDisputeList(orderId),
    })
  ).value;
}

export async function open(r: DisputeRun): Promise<DisputeId> {
  const { d } = r;
  await d.enter('OPENING');
  const id = await createDispute(r);
  await d.enter('OPEN');
  return id;
}

/**
 * The supplier pushes no dispute events: ask now and then until it is settled. Returns what to
 * carry when it is time to continue as new.
 */
export async function follow(r: DisputeRun, id: DisputeId): Promise<DisputeCarry | undefined> {
  const { d, input } = r;
  for (;;) {
    await condition(() => d.cancelAsked(), input.checkEverySeconds * 1000);
    d.checkCancel();
    const seen = entryOf(await listDisputes(r), id);
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

async function createDispute(r: DisputeRun): Promise<DisputeId> {
  const { d, input, supplier, supplierOnce, orderId } = r;
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
    return createDispute(r);
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
    return createDispute(r);
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
  return adopt(r, 'requestId' in found ? found.requestId : undefined);
}

/** The create is done: its dispute is the one the list shows for it, once the list caught up. */
async function adopt(r: DisputeRun, requestId: string | undefined): Promise<DisputeId> {
  const { d } = r;
  for (;;) {
    const m = await listedMatch(r);
    if (m.kind === 'one') {
      d.adopted(m.id, 'listed by the supplier');
      return m.id;
    }
    await d.needsAttention(
      unmatched(r, m, requestId),
      "find this request's dispute in the supplier's console; resume to look again, or cancel",
    );
  }
}

/** Reads the list until it shows this request's dispute, for at most the supplier's lag. */
async function listedMatch(r: DisputeRun): Promise<Match> {
  const { d, lagSeconds } = r;
  const since = now();
  d.waitFor(
    `the supplier to list the dispute it opened (its list may trail by up to ${lagSeconds} s)`,
  );
  for (let attempt = 1; ; attempt++) {
    const m = matchCreated(await listDisputes(r), d.sentCreate!, now());
    if (m.kind !== 'none' || now() - since >= d.supplierLagMs) {
      d.doneWaiting();
      return m;
    }
    await sleep(Math.min(backoff(attempt), Math.max(1_000, since + d.supplierLagMs - now())));
  }
}

function unmatched(
  r: DisputeRun,
  m: Exclude<Match, { kind: 'one' }>,
  requestId?: string,
): FailureInfo {
  const { lagSeconds } = r;
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
export async function endCancelled(r: DisputeRun): Promise<void> {
  const { d } = r;
  d.startFinishing();
  d.answerAll('the dispute is being cancelled', false, 'resume');
  const reason = d.cancelReason();
  const ended = await cancelAtSupplier(r);
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
async function cancelAtSupplier(r: DisputeRun): Promise<DisputeSummary | undefined> {
  const { d, supplier, supplierOnce, orderId } = r;
  const disputeId = d.disputeId ?? (await idForCancel(r));
  if (disputeId === undefined) return undefined;
  const found = entryOf(await listDisputes(r), disputeId);
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

async function idForCancel(r: DisputeRun): Promise<DisputeId | undefined> {
  const { d } = r;
  if (d.sentCreate === undefined) return undefined;
  const m = await listedMatch(r);
  if (m.kind === 'one') {
    d.adopted(m.id, 'listed by the supplier');
    return m.id;
  }
  d.note(`nothing cancelled at the supplier: ${unmatched(r, m).message}`);
  return undefined;
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
