/**
 * Checkout with the account's other orders: once created and approved for payment, the order
 * joins its account's checkout coordinator (workflows/checkout) and waits for its own outcome —
 * paid with its batch, or intercepted, or handed back to go on alone from where the batch got
 * (then the steps of checkout.ts and payment.ts do the rest, looking up first whatever the batch
 * left unknown). Cancel asks the coordinator to let the order go first.
 */
import { getExternalWorkflowHandle, workflowInfo } from '@temporalio/workflow';
import { Stage, type FailureInfo } from '../../client/definitions.js';
import type { CreateOrderRequest } from '../../supplier/api/orders.js';
import { queuePrefix, queuesOf } from '../../temporal/taskQueues.js';
import type { Activities } from '../activities.js';
import {
  checkoutFundsSignal,
  checkoutWithdrawSignal,
  checkoutReadySignal,
  checkoutWorkflowId,
  type CheckoutOutcome,
  type CheckoutProgress,
  type ReadyOrder,
} from '../checkout/messages.js';
import type { Order } from '../order.js';
import { cartToParentOrder, createOrder } from './checkout.js';
import { intercepted } from './interception.js';
import { approval, pay } from './payment.js';

type Settled = Extract<CheckoutOutcome, { kind: 'paid' | 'alone' | 'intercepted' }>;

export async function checkoutAndPay(
  o: Order,
  acts: Activities,
  body: CreateOrderRequest,
): Promise<void> {
  await createOrder(o, acts, body);
  await approval(o, o.status.amounts?.orderAmount);
  const outcome = await inBatch(o, acts);
  if (outcome.kind === 'paid') {
    o.paidInBatch(outcome.shipmentOrderId, outcome.payId, outcome.batchId, outcome.note);
    return;
  }
  const from: CheckoutProgress = outcome.progress;
  if (outcome.kind === 'intercepted') {
    await intercepted(o, acts, outcome.step, outcome.reasons);
  } else {
    o.note(`checking out alone: ${outcome.why}`);
    if (from.unknownStep !== undefined) o.outcomeUnknown(from.unknownStep);
    if (from.shipmentOrderId !== undefined) o.confirmedInBatch(from.shipmentOrderId);
    if (outcome.failure !== undefined) o.failed(outcome.failure);
  }
  const parent = await cartToParentOrder(o, acts, from);
  await pay(o, acts, parent, { awaitFunds: fundsFromCoordinator });
}

function coordinatorId(): string {
  return checkoutWorkflowId(queuePrefix(queuesOf(workflowInfo().taskQueue)));
}

/** Signals the coordinator; starts it (with the ready order) if it does not run. */
async function join(o: Order, acts: Activities): Promise<void> {
  const ready: ReadyOrder = {
    workflowId: workflowInfo().workflowId,
    svcOrderId: o.status.svcOrderId!,
    ...(o.status.amounts?.orderAmount !== undefined && { amount: o.status.amounts.orderAmount }),
    lagMs: o.supplierLagMs,
    readyAt: new Date().toISOString(),
  };
  try {
    await getExternalWorkflowHandle(coordinatorId()).signal(checkoutReadySignal, ready);
  } catch {
    await acts.orchestration.joinCheckout(ready);
  }
}

/** Waits for the order's outcome in its batch, answering cancel and resume meanwhile. */
async function inBatch(o: Order, acts: Activities): Promise<Settled> {
  await join(o, acts);
  const coordinator = getExternalWorkflowHandle(coordinatorId());
  // Where the order is at work (CREATED, or AWAITING_PAYMENT once approved) while it waits.
  const working = o.stage;
  let withdrawing = false;
  let short: { why: string; failure?: FailureInfo } | undefined;
  for (;;) {
    const news = o.nextCheckoutNews();
    if (news !== undefined) {
      switch (news.kind) {
        case 'withdrawn':
          // A late answer to an earlier cancel that was settled otherwise is ignored.
          if (withdrawing) o.releaseCancel();
          continue;
        case 'withdrawRefused':
          withdrawing = false;
          o.releaseCancel(`cancel refused: ${news.why}`);
          continue;
        case 'awaitingFunds':
          short = { why: news.why, ...(news.failure !== undefined && { failure: news.failure }) };
          o.awaitTopUp();
          o.enter(Stage.AWAITING_FUNDS);
          if (news.failure !== undefined) o.failed(news.failure);
          continue;
        case 'fundsAvailable':
          continue;
        case 'paid':
          if (withdrawing) o.releaseCancel('cancel refused: the order was paid with its batch');
          return news;
        default:
          // Back in the order's own hands: a waiting cancel goes on if nothing is paid or in doubt.
          if (news.kind === 'alone' && news.progress.unknownStep !== undefined) {
            o.outcomeUnknown(news.progress.unknownStep);
          }
          if (withdrawing) o.releaseCancel();
          return news;
      }
    }
    if (short !== undefined && o.news.toppedUp === true) {
      // A top-up the order heard of (its webhook may reach only the order): the coordinator
      // reads the balance now.
      o.awaitTopUp();
      await coordinator.signal(checkoutFundsSignal, { kind: 'toppedUp' });
    }
    const action = await o.waitAt(
      short ? Stage.AWAITING_FUNDS : working,
      short
        ? `${short.why}: the account's checkout pays it once the balance covers it (a balance top-up, or resume to read the balance now), or cancel`
        : 'its checkout batch: the account carts, confirms and pays its orders together',
      short ? ['resume'] : [],
      {
        until: () => o.hasCheckoutNews() || (short !== undefined && o.news.toppedUp === true),
        cancelReturns: true,
        brief: short === undefined,
      },
    );
    if (action?.kind === 'cancel') {
      o.holdCancel(action);
      withdrawing = true;
      await coordinator.signal(checkoutWithdrawSignal, { workflowId: workflowInfo().workflowId });
    } else if (action?.kind === 'resume') {
      await coordinator.signal(checkoutFundsSignal, { kind: 'toppedUp' });
      o.answer(action, 'reading the balance now');
    }
  }
}

/**
 * The balance is short for an order paying alone: the account's coordinator reads the balance
 * for every waiting order and says when it covers this one; a top-up, resume or cancel also end
 * the wait.
 */
async function fundsFromCoordinator(
  o: Order,
  _acts: Activities,
  amount: number | undefined,
  refusal: FailureInfo,
): Promise<void> {
  o.awaitTopUp();
  o.enter(Stage.AWAITING_FUNDS);
  o.failed(refusal);
  const coordinator = getExternalWorkflowHandle(coordinatorId());
  const workflowId = workflowInfo().workflowId;
  if (amount !== undefined) {
    await coordinator.signal(checkoutFundsSignal, {
      kind: 'wait',
      workflowId,
      amount,
      since: new Date().toISOString(),
    });
  }
  const covered = () => {
    for (let n = o.nextCheckoutNews(); n !== undefined; n = o.nextCheckoutNews()) {
      if (n.kind === 'fundsAvailable') return true;
    }
    return false;
  };
  const toppedUp = () => o.news.toppedUp === true;
  for (;;) {
    const action = await o.waitAt(
      Stage.AWAITING_FUNDS,
      `a balance top-up of at least ${amount ?? 'the order amount'} USD (makeup payment), resume, or cancel`,
      ['resume'],
      { until: () => toppedUp() || o.hasCheckoutNews() },
    );
    if (action) o.answer(action, 'retrying payment');
    else if (toppedUp()) o.note('balance topped up');
    else if (!covered()) continue;
    else o.note('the balance covers the payment');
    if (amount !== undefined) {
      await coordinator.signal(checkoutFundsSignal, { kind: 'stopWaiting', workflowId });
    }
    return;
  }
}
