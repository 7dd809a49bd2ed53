/**
 * `disputeOrder` (architecture §3): disputeProducts → disputeConfirmInfo → create → follow the
 * result. The businessDisputeId comes from the caller and names the workflow, so neither a
 * repeated request nor a retried create opens a second dispute. The order's workflow, if still
 * open, hears every change.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  setCurrentDetails,
  setHandler,
} from '@temporalio/workflow';
import type { DisputeLine, DisputeSummary } from '../activities/disputes.js';
import {
  cancelUpdate,
  disputeStatusQuery,
  orderWorkflowId,
  resumeUpdate,
  supplierEventSignal,
  type ActionResult,
  type CancelInput,
  type DisputeInput,
  type DisputeOutcome,
  type DisputeStage,
  type DisputeStatus,
} from '../client/definitions.js';
import { FailureType } from '../client/failures.js';
import { activities } from './activities.js';
import { failureInfo, supplierFailure } from './failures.js';

const OUTCOMES: Record<number, DisputeOutcome['result']> = {
  1: 'refund',
  2: 'reissue',
  3: 'reject',
};

class DisputeCancelled extends Error {}

export async function disputeOrder(input: DisputeInput): Promise<DisputeStatus> {
  const { supplier } = activities();
  const status: DisputeStatus = {
    orderNumber: input.orderNumber,
    businessDisputeId: input.businessDisputeId,
    stage: 'OPENING',
    timeline: [],
  };
  let resumeAsked: ((r: ActionResult) => void) | undefined;
  let cancelAsked: { input: CancelInput; answer?: ActionResult } | undefined;
  // Read through a function: update handlers change it while the workflow waits.
  const cancelRequested = () => cancelAsked !== undefined;

  const enter = async (stage: DisputeStage, note?: string) => {
    status.stage = stage;
    if (stage !== 'NEEDS_ATTENTION') delete status.error;
    status.timeline.push({
      stage,
      at: new Date().toISOString(),
      ...(note !== undefined && { note }),
    });
    setCurrentDetails(
      `**${stage}** — dispute ${status.disputeId ?? input.businessDisputeId} of order ${input.orderNumber}` +
        (status.outcome
          ? `\n\noutcome: ${status.outcome.result}${status.outcome.money !== undefined ? ` ${status.outcome.money} USD` : ''}`
          : '') +
        (status.error ? `\n\nerror at ${status.error.step}: ${status.error.message}` : ''),
    );
    await tellOrder(input, status);
  };

  setHandler(disputeStatusQuery, () => status);
  setHandler(
    resumeUpdate,
    () =>
      new Promise<ActionResult>((resolve) => {
        resumeAsked = resolve;
      }),
    {
      validator: (_input) => {
        if (status.stage !== 'NEEDS_ATTENTION')
          throw new Error(`resume refused: the dispute is ${status.stage}`);
      },
    },
  );
  setHandler(
    cancelUpdate,
    async (cancel) => {
      cancelAsked = { input: cancel };
      await condition(() => cancelAsked?.answer !== undefined);
      return cancelAsked.answer!;
    },
    {
      validator: (cancel: CancelInput) => {
        if (status.stage === 'RESOLVED' || status.stage === 'CANCELLED') {
          throw new Error(`cancel refused: the dispute is ${status.stage}`);
        }
        if (typeof cancel.reason !== 'string' || cancel.reason.trim() === '') {
          throw new Error('cancel refused: a reason is required');
        }
      },
    },
  );

  /** Runs a supplier step; a failure retrying cannot mend waits for resume (or cancel). */
  async function step<T>(name: string, run: () => Promise<T>): Promise<T> {
    for (;;) {
      if (cancelRequested()) throw new DisputeCancelled();
      try {
        return await run();
      } catch (err) {
        if (!(err instanceof ActivityFailure)) throw err;
        const f = supplierFailure(err);
        // Every dispute call is safe to repeat (create is idempotent by businessDisputeId).
        if (f?.type === FailureType.Ambiguous) continue;
        const before = status.stage;
        status.error = f
          ? failureInfo(name, f)
          : { step: name, message: err.cause?.message ?? err.message };
        await enter('NEEDS_ATTENTION');
        await condition(() => resumeAsked !== undefined || cancelAsked !== undefined);
        if (cancelRequested()) throw new DisputeCancelled();
        await enter(before, `resumed at ${name}`);
        resumeAsked!({ accepted: true, stage: status.stage, message: `retrying ${name}` });
        resumeAsked = undefined;
      }
    }
  }

  const orderId = input.svcOrderId;
  try {
    await enter('OPENING');
    const existing = await step('getDisputeList', () => supplier.getDisputeList(orderId));
    let open = existing.find((d) => d.status === 'Processing');
    if (!open) {
      const lines = await step('disputeProducts', async () =>
        chooseLines(input, await supplier.disputeProducts(orderId)),
      );
      const terms = await step('disputeConfirmInfo', () =>
        supplier.disputeConfirmInfo({ orderId, lines }),
      );
      const reason = terms.reasons.find((r) => r.id === input.reasonId) ?? terms.reasons[0];
      if (!reason) throw ApplicationFailure.nonRetryable('the supplier offers no dispute reason');
      status.reason = reason.name;
      status.amount = lines.reduce((sum, l) => sum + l.price * l.quantity, 0);
      await step('createDispute', () =>
        supplier.createDispute({
          businessDisputeId: input.businessDisputeId,
          orderId,
          disputeReasonId: reason.id,
          expectType: input.expect === 'refund' ? 1 : 2,
          refundType: input.refundTo === 'balance' ? 1 : 2,
          messageText: input.message,
          imageUrls: input.imageUrls,
          lines,
        }),
      );
      const after = await step('getDisputeList', () => supplier.getDisputeList(orderId));
      open = after.find((d) => d.status === 'Processing') ?? after[0];
    }
    if (open) status.disputeId = open.disputeId;
    await enter('OPEN');

    // The supplier pushes no dispute events: ask now and then.
    for (;;) {
      await condition(() => cancelAsked !== undefined, input.checkEverySeconds * 1000);
      if (cancelRequested()) throw new DisputeCancelled();
      const now = (await step('getDisputeList', () => supplier.getDisputeList(orderId))).find(
        (d) => d.disputeId === status.disputeId,
      );
      if (now && settled(now)) {
        status.outcome = outcomeOf(now);
        await enter(now.status === 'Cancelled' ? 'CANCELLED' : 'RESOLVED');
        break;
      }
    }
  } catch (err) {
    if (!(err instanceof DisputeCancelled) || !cancelAsked) throw err;
    if (status.disputeId !== undefined) {
      const disputeId = status.disputeId;
      await step('cancelDispute', () => supplier.cancelDispute({ orderId, disputeId }));
    }
    await enter('CANCELLED', cancelAsked.input.reason);
    cancelAsked.answer = { accepted: true, stage: 'CANCELLED', message: 'dispute cancelled' };
  }
  return status;
}

function settled(d: DisputeSummary): boolean {
  return d.status === 'Completed' || d.status === 'Cancelled' || d.finallyDeal !== undefined;
}

function outcomeOf(d: DisputeSummary): DisputeOutcome | undefined {
  const result = d.finallyDeal === undefined ? undefined : OUTCOMES[d.finallyDeal];
  if (!result) return undefined;
  return {
    result,
    ...(d.money !== undefined && { money: d.money }),
    ...(d.resendOrderCode !== undefined && { resendOrderCode: d.resendOrderCode }),
  };
}

/** The lines asked for, priced by the supplier; every disputable unit when none were named. */
function chooseLines(
  input: DisputeInput,
  offered: { lineItemId: string; price: number; quantity: number; canChoose: boolean }[],
): DisputeLine[] {
  const open = offered.filter((l) => l.canChoose && l.quantity > 0);
  if (input.lines.length === 0)
    return open.map((l) => ({ lineItemId: l.lineItemId, quantity: l.quantity, price: l.price }));
  return input.lines.map((want) => {
    const line = open.find((l) => l.lineItemId === want.lineItemId);
    if (!line) throw ApplicationFailure.nonRetryable(`line ${want.lineItemId} cannot be disputed`);
    return {
      lineItemId: line.lineItemId,
      quantity: Math.min(want.quantity, line.quantity),
      price: line.price,
    };
  });
}

/** Tells the order's workflow, if it is still open; a closed one has nothing to hear. */
async function tellOrder(input: DisputeInput, status: DisputeStatus): Promise<void> {
  try {
    await getExternalWorkflowHandle(orderWorkflowId(input.orderNumber)).signal(
      supplierEventSignal,
      {
        messageId: `dispute:${input.businessDisputeId}:${status.stage}:${status.timeline.length}`,
        kind: 'dispute',
        dispute: {
          businessDisputeId: input.businessDisputeId,
          stage: status.stage,
          ...(status.disputeId !== undefined && { disputeId: status.disputeId }),
          ...(status.outcome !== undefined && { outcome: status.outcome }),
        },
      },
    );
  } catch {
    // The order's workflow has finished (or never ran here).
  }
}
