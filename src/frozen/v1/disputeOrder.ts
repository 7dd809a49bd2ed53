/**
 * `disputeOrder`, as it was before the reconciling steps: disputeProducts → disputeConfirmInfo → create → follow the
 * result. The businessDisputeId comes from the caller and names the workflow, so a repeated
 * request does not open a second dispute; a create whose answer was lost is not simply sent
 * again either: the order's disputes are looked up first and an open one is adopted. The order's
 * workflow, if still open, hears every change. A cancel looks the dispute up before finishing and
 * cancels it at the supplier if it is open, even when the create's answer never came.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  getExternalWorkflowHandle,
  setCurrentDetails,
  setHandler,
} from '@temporalio/workflow';
import type { DisputeLine, DisputeSummary } from '../../dispute/activities.js';
import type { ActionResult, CancelInput, DisputeOutcome } from '../../order/contract.js';
import type { DisputeStage } from '../../storeEvents/contract.js';
import type { DisputeInput, DisputeStatus } from '../../dispute/contract.js';
import {
  cancelUpdate,
  disputeStatusQuery,
  orderWorkflowId,
  resumeUpdate,
  supplierEventSignal,
} from '../common/contracts.js';
import { FailureType } from '../common/supplier.js';
import { activities } from './activities.js';
import { failureInfo, supplierFailure } from './failures.js';

const OUTCOMES: Record<number, DisputeOutcome['result']> = {
  1: 'refund',
  2: 'reissue',
  3: 'reject',
};

/** Calls in a row whose answer was lost (ambiguous) before a person is asked to look. */
export const MAX_UNANSWERED_ATTEMPTS = 5;

/** Thrown inside the workflow to leave the steps for the cancel path; never leaves it. */
class DisputeCancelled extends ApplicationFailure {
  constructor() {
    super('the dispute was cancelled', 'DisputeCancelled', true);
  }
}

/** An update refused by its validator. */
const refused = (message: string) =>
  ApplicationFailure.create({ type: 'ActionRefused', message, nonRetryable: true });

interface StepOptions<T> {
  /**
   * After a lost answer, asked before the call is sent again: `{ value }` when the call turns out
   * to have taken effect (then it is not sent again), undefined when it did not.
   */
  recover?: () => Promise<{ value: T } | undefined>;
  /** A step of the cancel path: a cancel does not interrupt it, and it waits for resume only. */
  finishing?: boolean;
}

export async function disputeOrderV1(input: DisputeInput): Promise<DisputeStatus> {
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
  /** createDispute was sent at least once: a dispute may exist that status.disputeId lacks. */
  let createSent = false;

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
          throw refused(`resume refused: the dispute is ${status.stage}`);
        // One resolver only: a second resume would leave the first without an answer.
        if (resumeAsked !== undefined) throw refused('resume refused: a resume is already pending');
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
          throw refused(`cancel refused: the dispute is ${status.stage}`);
        }
        if (typeof cancel.reason !== 'string' || cancel.reason.trim() === '') {
          throw refused('cancel refused: a reason is required');
        }
      },
    },
  );

  /**
   * Runs a supplier step. A lost answer (ambiguous) is checked with `recover`, if given, then the
   * call is sent again, at most MAX_UNANSWERED_ATTEMPTS times in a row; that, or a failure
   * retrying cannot mend, waits for resume (or cancel).
   */
  async function step<T>(
    name: string,
    run: () => Promise<T>,
    opts: StepOptions<T> = {},
  ): Promise<T> {
    const interrupted = () => opts.finishing !== true && cancelRequested();
    let unanswered = 0;
    for (;;) {
      if (interrupted()) throw new DisputeCancelled();
      try {
        if (unanswered > 0 && opts.recover) {
          const took = await opts.recover();
          if (took) return took.value;
        }
        return await run();
      } catch (err) {
        if (!(err instanceof ActivityFailure)) throw err;
        const f = supplierFailure(err);
        const info = f
          ? failureInfo(name, f)
          : { step: name, message: err.cause?.message ?? err.message };
        if (f?.type === FailureType.Ambiguous) {
          unanswered += 1;
          if (unanswered < MAX_UNANSWERED_ATTEMPTS) continue;
          info.message = `no answer after ${unanswered} attempts: ${info.message}`;
        }
        const before = status.stage;
        status.error = info;
        await enter('NEEDS_ATTENTION');
        await condition(() => resumeAsked !== undefined || interrupted());
        if (interrupted()) throw new DisputeCancelled();
        await enter(before, `resumed at ${name}`);
        resumeAsked!({ accepted: true, stage: status.stage, message: `retrying ${name}` });
        resumeAsked = undefined;
        // A fresh allowance; a lost answer is still checked (recover) before sending again.
        unanswered = Math.min(unanswered, 1);
      }
    }
  }

  const orderId = input.svcOrderId;
  const listDisputes = (finishing = false) =>
    step('getDisputeList', () => supplier.getDisputeList(orderId), { finishing });
  /** The order's open dispute, if the supplier shows one. */
  const openDispute = async () => (await listDisputes()).find((d) => d.status === 'Processing');

  try {
    await enter('OPENING');
    let open = await openDispute();
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
      open = await step(
        'createDispute',
        async (): Promise<DisputeSummary | undefined> => {
          createSent = true;
          await supplier.createDispute({
            businessDisputeId: input.businessDisputeId,
            orderId,
            disputeReasonId: reason.id,
            expectType: input.expect === 'refund' ? 1 : 2,
            refundType: input.refundTo === 'balance' ? 1 : 2,
            messageText: input.message,
            imageUrls: input.imageUrls,
            lines,
          });
          return undefined;
        },
        {
          // The answer was lost: did the supplier open it? Then adopt it rather than ask twice.
          recover: async () => {
            const found = await openDispute();
            return found && { value: found };
          },
        },
      );
      if (!open) {
        const after = await listDisputes();
        open = after.find((d) => d.status === 'Processing') ?? after[0];
      }
    }
    if (open) status.disputeId = open.disputeId;
    await enter('OPEN');

    // The supplier pushes no dispute events: ask now and then.
    for (;;) {
      await condition(() => cancelAsked !== undefined, input.checkEverySeconds * 1000);
      if (cancelRequested()) throw new DisputeCancelled();
      const now = (await listDisputes()).find((d) => d.disputeId === status.disputeId);
      if (now && settled(now)) {
        status.outcome = outcomeOf(now);
        await enter(now.status === 'Cancelled' ? 'CANCELLED' : 'RESOLVED');
        break;
      }
    }
  } catch (err) {
    if (!(err instanceof DisputeCancelled) || !cancelAsked) throw err;
    // A resume asked together with the cancel: answered, not left waiting.
    resumeAsked?.({
      accepted: false,
      stage: status.stage,
      message: 'the dispute is being cancelled',
    });
    resumeAsked = undefined;

    const ended = await cancelAtSupplier();
    // Read after the awaits: a second cancel meanwhile replaces it, and every caller waits on
    // the current one's answer.
    const reason = cancelAsked.input.reason;
    if (ended && ended.status !== 'Cancelled') {
      // It had been settled at the supplier before the cancel reached it: that is how it ends.
      status.outcome = outcomeOf(ended);
      await enter('RESOLVED', `cancel asked (${reason}); the dispute had already been settled`);
      cancelAsked.answer = {
        accepted: false,
        stage: 'RESOLVED',
        message: 'the dispute had already been settled at the supplier',
      };
    } else {
      await enter('CANCELLED', reason);
      cancelAsked.answer = { accepted: true, stage: 'CANCELLED', message: 'dispute cancelled' };
    }
  }
  return status;

  /**
   * Cancels the dispute at the supplier if it is open there. Its id may be unknown (the cancel
   * came while createDispute was on its way): then the order's open dispute is the one. Returns
   * the dispute if it had already ended instead.
   */
  async function cancelAtSupplier(): Promise<DisputeSummary | undefined> {
    if (status.disputeId === undefined && !createSent) return undefined;
    const list = await listDisputes(true);
    const known = status.disputeId;
    const found =
      known === undefined
        ? list.find((d) => d.status === 'Processing')
        : list.find((d) => d.disputeId === known);
    if (found && settled(found)) return found;
    const disputeId = found?.disputeId ?? known;
    if (disputeId === undefined) return undefined;
    status.disputeId = disputeId;
    await step('cancelDispute', () => supplier.cancelDispute({ orderId, disputeId }), {
      finishing: true,
      // The answer was lost: cancelled already if the supplier no longer shows it open.
      recover: async () => {
        const now = (await listDisputes(true)).find((d) => d.disputeId === disputeId);
        return now !== undefined && settled(now) ? { value: undefined } : undefined;
      },
    });
    return undefined;
  }
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
