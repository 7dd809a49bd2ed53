/**
 * Checkout with the account's other orders: once created and approved for payment, the order
 * joins its account's checkout coordinator (checkout/coordinator.ts, through checkout/contract.ts)
 * and waits for its own outcome — paid with its batch, or intercepted, or handed back to go on
 * alone from where the batch got (then the steps of checkout.ts and payment.ts here do the rest,
 * looking up first whatever the batch left unknown). Cancel asks the coordinator to let the order
 * go first.
 *
 * No wait on the coordinator is unbounded (Patch.CheckoutBounds): past its bound the order asks
 * the coordinator where it holds it, and if it holds it no more (terminated, reset) the order
 * settles from the supplier's own view what a batch may have done to it before it re-joins or
 * goes on alone. A confirmed shipment shared with other orders is paid once for all of them.
 */
import {
  ActivityFailure,
  getExternalWorkflowHandle,
  isCancellation,
  workflowInfo,
  type SignalDefinition,
} from '@temporalio/workflow';
import { Stage } from '../contract.js';
import type { FailureInfo } from '../../supplier/failureDetails.js';
import { OrderStatus, reachedStatus } from '../../supplier/api/constants.js';
import type { CreateOrderRequest } from '../../supplier/api/orders.js';
import { queuePrefix, queuesOf } from '../../temporal/taskQueues.js';
import { accountScope } from '../../accounts/contract.js';
import { ownAccount, workflowAccount } from '../../durable/account.js';
import { readyAnnouncing, type Activities } from '../../durable/activityProxies.js';
import {
  checkoutFundsSignal,
  checkoutOutcomeSignal,
  checkoutWithdrawSignal,
  checkoutReadySignal,
  checkoutWorkflowId,
  CHECKOUT_BOUND_MEMO,
  MIN_ORDER_BOUND_MS,
  type CheckoutOutcome,
  type CheckoutProgress,
  type FundsNews,
  type ReadyOrder,
} from '../../checkout/contract.js';
import type { Order } from '../order.js';
import { PAYMENT_STEP } from '../../durable/shipmentPayment.js';
import { Patch } from '../../durable/versions.js';
import { cartToParentOrder, createOrder, type ParentOrder } from './checkout.js';
import { intercepted } from './interception.js';
import { orderReached, PAID_STATUS } from './lookup.js';
import { approval, awaitFunds, pay } from './payment.js';
import { lookUpRemedy, settleOutcome, supplierCall } from '../../durable/supplierStep.js';
import { marginGuarded, marginTerms } from '../marginGuard.js';
import { has } from '../../durable/patches.js';

type Settled = Extract<CheckoutOutcome, { kind: 'paid' | 'alone' | 'intercepted' }>;

/**
 * Before Patch.CheckoutBoundAtStart, a wait on the batch that lasted this long was no longer
 * brief: visibility showed its stage.
 */
const BRIEF_WAIT = '10 seconds';
/** The least bound of a wait for funds. */
const FUNDS_BOUND_MS = 30 * 60_000;
/** How often an order whose shared shipment another order pays looks whether it is paid, at most. */
const SHARED_PAYMENT_CHECK_MS = 30_000;

/** The batch's cart steps, as the order's own reconciling steps name them. */
const CART_STEP = 'addCart';
const CONFIRM_STEP = 'addCartConfirm';

const bounded = () => has(Patch.CheckoutBounds);

export async function checkoutAndPay(
  o: Order,
  acts: Activities,
  body: CreateOrderRequest,
): Promise<void> {
  await createOrder(o, acts, body);
  await approval(o, o.view.status.amounts?.orderAmount);
  const outcome = await inBatch(o, acts);
  if (outcome.kind === 'paid') {
    o.money.paidInBatch(outcome.shipmentOrderId, outcome.payId, outcome.batchId, outcome.note);
    return;
  }
  const shares = bounded();
  if (shares) o.money.checkingOutAlone();
  const from: CheckoutProgress = outcome.progress;
  if (outcome.kind === 'intercepted') {
    await intercepted(o, acts, outcome.step, outcome.reasons);
  } else {
    o.view.note(`checking out alone: ${outcome.why}`);
    if (from.unknownStep !== undefined) o.waits.outcomeUnknown(from.unknownStep);
    if (from.shipmentOrderId !== undefined) confirmedInBatch(o, from, shares);
    if (outcome.failure !== undefined) o.view.failed(outcome.failure);
    await stopIfUnsettled(o, outcome);
  }
  if (shares && o.money.paidBySibling()) return;
  const parent = await cartToParentOrder(o, acts, from);
  // Its confirmation's look-up found it paid by its batch: the order took it as paid.
  if (parent === undefined) return;
  if (shares && from.unknownStep === CONFIRM_STEP && from.shipmentOrderId === undefined) {
    // A batch's confirmation whose answer was lost: other orders may share this shipment.
    o.money.confirmedInBatch(parent.shipmentOrderId, { siblings: undefined });
    if (has(Patch.SharedShipmentPayer) && (await paidByItsPayer(o, acts, parent))) return;
  }
  await pay(o, acts, parent, {
    awaitFunds: fundsFromCoordinator,
    ...(shares && { paidElsewhere: () => o.money.paidBySibling() }),
  });
  if (shares && o.money.paidItsShipment) await tellSiblings(o);
}

/**
 * Its batch could not look up a call whose answer was lost (Patch.BatchLookUpBounded): the order
 * stops for a person with that failure at once, as its own failing look-up would; resume looks
 * the call up from this order.
 */
async function stopIfUnsettled(
  o: Order,
  outcome: Extract<CheckoutOutcome, { kind: 'alone' }>,
): Promise<void> {
  const step = outcome.progress.unknownStep;
  const failure = outcome.failure;
  if (step === undefined || failure?.step !== `${step} look-up`) return;
  if (!has(Patch.BatchLookUpBounded)) return;
  await o.waits.needsAttention(failure, lookUpRemedy(step));
}

/**
 * A shipment its batch confirmed with orders this one cannot name (the coordinator is gone, or
 * the confirmation's answer was lost): each of them goes on alone, and one payment settles them
 * all. The one with the smallest svc order id pays (unless it finds the shipment paid); the others
 * look every while whether it is paid, and resume pays it from this order instead. A payer whose
 * workflow runs no more (an operator terminated it) while the shipment stays unpaid past the bound
 * is passed over: the next order in the same order pays, once the supplier's view, given its lag,
 * shows the shipment unpaid (Patch.ShipmentPayerTakeover). True: paid.
 */
async function paidByItsPayer(o: Order, acts: Activities, parent: ParentOrder): Promise<boolean> {
  const { shipmentOrderId } = parent;
  // The unpaid orders of the shipment: none once any of them paid it.
  const unpaid = (
    await supplierCall(o.waits, {
      name: 'ordersOfShipment',
      send: () => acts.supplier.ordersOfShipment(shipmentOrderId),
    })
  ).value;
  const me = o.view.status.svcOrderId;
  const members = [...new Set(unpaid)].sort();
  if (members.length === 1 && members[0] === me) return false;
  const paid = async (by: string): Promise<boolean> => {
    const seen = (
      await supplierCall(o.waits, {
        name: 'the shipment payment look-up',
        send: () => orderReached(o, acts, PAID_STATUS),
      })
    ).value;
    if (seen.done) o.money.made(`paid with its shipment ${shipmentOrderId} by ${by}`);
    return seen.done;
  };
  let payer = members[0];
  if (payer === undefined || payer === me) return paid('another order of it');
  const bound = await waitBound(acts, false);
  const every = Math.min(bound, SHARED_PAYMENT_CHECK_MS);
  /** Since when this order waits for `payer`: past the bound, it asks whether the payer runs. */
  let waitingSince = new Date().getTime();
  for (;;) {
    if (o.money.paidBySibling() || (await paid(`its order ${payer}`))) return true;
    if (
      new Date().getTime() - waitingSince >= bound &&
      has(Patch.ShipmentPayerTakeover) &&
      !(await stillPaying(acts, payer))
    ) {
      const next = nextPayer(members, payer, me);
      o.view.note(
        `its order ${payer}, which was to pay shipment ${shipmentOrderId}, runs no more and the shipment is unpaid: ` +
          (next === me ? 'this order pays it' : `its order ${next} pays it`),
      );
      if (next === me) {
        // The payer may have paid just before it went: the supplier's view settles it, given its lag.
        o.waits.outcomeUnknown(PAYMENT_STEP);
        return false;
      }
      payer = next;
      waitingSince = new Date().getTime();
    }
    const action = await o.waits.at(
      Stage.AWAITING_PAYMENT,
      `shipment ${shipmentOrderId}, which the supplier pays only whole, to be paid by its order ${payer} (looked up every ${Math.round(every / 1000)} s; if that order runs no more, the next one pays); resume pays it from this order`,
      ['resume'],
      { timeout: every, until: () => o.money.siblingPayment !== undefined },
    );
    if (action) {
      o.actions.answer(action, `paying shipment ${shipmentOrderId} from this order`);
      return false;
    }
  }
}

/** Whether the payer's order workflow still runs; unanswered, it is taken to run (asked again). */
async function stillPaying(acts: Activities, payer: string): Promise<boolean> {
  try {
    return (await acts.orchestration.orderRunOf(payer)) === 'RUNNING';
  } catch (err) {
    if (err instanceof ActivityFailure) return true;
    throw err;
  }
}

/** The order after `payer` in the shipment's order (this one, past the last). */
function nextPayer(members: readonly string[], payer: string, me: string | undefined): string {
  return members[members.indexOf(payer) + 1] ?? me ?? payer;
}

function confirmedInBatch(o: Order, from: CheckoutProgress, shares: boolean): void {
  if (shares) o.money.confirmedInBatch(from.shipmentOrderId!, { siblings: from.siblings });
  else o.money.confirmedInBatch(from.shipmentOrderId!);
}

/** One payment settles every order of a shipment: its siblings hear it (signals may fail). */
async function tellSiblings(o: Order): Promise<void> {
  if (o.money.siblings.length === 0) return;
  const paid: CheckoutOutcome = {
    kind: 'paid',
    batchId: `shipment ${o.view.status.shipmentOrderId!}`,
    shipmentOrderId: o.view.status.shipmentOrderId!,
    payId: o.view.status.payId!,
    note: `paid with its shipment ${o.view.status.shipmentOrderId!} by order ${o.view.status.orderNumber}`,
  };
  const told = await Promise.all(
    o.money.siblings.map((id) => signal(id, checkoutOutcomeSignal, paid)),
  );
  const missed = told.filter((ok) => !ok).length;
  o.view.note(
    `told ${told.length - missed} other order(s) of shipment ${paid.shipmentOrderId} that it is paid` +
      (missed > 0 ? `; ${missed} could not be told (their own look-up finds it paid)` : ''),
  );
}

/** Signals another workflow; false when it cannot be told (gone, terminated): never a task failure. */
async function signal<A>(workflowId: string, def: SignalDefinition<[A]>, arg: A): Promise<boolean> {
  try {
    await getExternalWorkflowHandle(workflowId).signal(def, arg);
    return true;
  } catch (err) {
    if (!bounded()) throw err;
    return false;
  }
}

function coordinatorId(): string {
  return checkoutWorkflowId(
    accountScope(queuePrefix(queuesOf(workflowInfo().taskQueue)), workflowAccount()),
  );
}

/**
 * Tells the coordinator the order is ready; starts it (with the order) if it does not run. Through
 * the worker's gathered signal (Patch.ReadyBatched), else, or if that keeps failing, a signal of
 * its own.
 */
async function join(o: Order, acts: Activities): Promise<void> {
  const ready: ReadyOrder = {
    workflowId: workflowInfo().workflowId,
    svcOrderId: o.view.status.svcOrderId!,
    ...(o.view.status.amounts?.orderAmount !== undefined && {
      amount: o.view.status.amounts.orderAmount,
    }),
    lagMs: o.waits.supplierLagMs,
    readyAt: new Date().toISOString(),
    ...(marginGuarded(o) && { margin: marginTerms(o) }),
  };
  if (has(Patch.ReadyBatched)) {
    try {
      await readyAnnouncing()(ready, ...ownAccount());
      return;
    } catch (err) {
      // A local activity's last failure may reach the workflow as its cause alone (an
      // ApplicationFailure, not an ActivityFailure): whatever failed, the order signals itself.
      if (isCancellation(err)) throw err;
    }
  }
  try {
    await getExternalWorkflowHandle(coordinatorId()).signal(checkoutReadySignal, ready);
  } catch {
    await acts.orchestration.joinCheckout(ready, ...ownAccount());
  }
}

/** Tells the coordinator of funds news; false when it runs no more. */
function fundsNews(news: FundsNews): Promise<boolean> {
  return signal(coordinatorId(), checkoutFundsSignal, news);
}

/** Waits for the order's outcome in its batch, answering cancel and resume meanwhile. */
async function inBatch(o: Order, acts: Activities): Promise<Settled> {
  await join(o, acts);
  // Where the order is at work (CREATED, or AWAITING_PAYMENT once approved) while it waits.
  const working = o.view.stage;
  let withdrawing = false;
  let short: { why: string; failure?: FailureInfo } | undefined;
  let bound: number | undefined;
  /** The bound came with the order's start (Patch.CheckoutBoundAtStart): one timer per wait. */
  let boundAtStart = false;
  /** A bound passed with the order still held: its waits are no longer brief. */
  let outwaited = false;
  for (;;) {
    const news = o.money.nextOutcome();
    if (news !== undefined) {
      switch (news.kind) {
        case 'withdrawn':
          // A late answer to an earlier cancel that was settled otherwise is ignored.
          if (withdrawing) o.waits.releaseCancel();
          continue;
        case 'withdrawRefused':
          withdrawing = false;
          o.waits.releaseCancel(`cancel refused: ${news.why}`);
          continue;
        case 'awaitingFunds':
          short = { why: news.why, ...(news.failure !== undefined && { failure: news.failure }) };
          if (news.shipmentOrderId !== undefined && bounded()) {
            o.money.confirmedInBatch(news.shipmentOrderId, { siblings: news.siblings });
          }
          o.supplier.awaitTopUp();
          o.view.enter(Stage.AWAITING_FUNDS);
          if (news.failure !== undefined) o.view.failed(news.failure);
          continue;
        case 'fundsAvailable':
          continue;
        case 'paid':
          if (withdrawing)
            o.waits.releaseCancel('cancel refused: the order was paid with its batch');
          return news;
        default:
          // Back in the order's own hands: a waiting cancel goes on if nothing is paid or in doubt.
          if (news.kind === 'alone' && news.progress.unknownStep !== undefined) {
            o.waits.outcomeUnknown(news.progress.unknownStep);
          }
          if (withdrawing) releaseHandedBack(o, news);
          return news;
      }
    }
    if (short !== undefined && o.supplier.news.toppedUp === true) {
      // A top-up the order heard of (its webhook may reach only the order): the coordinator
      // reads the balance now.
      o.supplier.awaitTopUp();
      await fundsNews({ kind: 'toppedUp' });
    }
    if (bounded() && bound === undefined) {
      boundAtStart = has(Patch.CheckoutBoundAtStart);
      bound = boundAtStart ? startBound() : await waitBound(acts, false);
    }
    const action = await o.waits.at(
      short ? Stage.AWAITING_FUNDS : working,
      short
        ? `${short.why}: the account's checkout pays it once the balance covers it (a balance top-up, or resume to read the balance now), or cancel`
        : 'its checkout batch: the account carts, confirms and pays its orders together',
      short ? ['resume'] : [],
      {
        until: () =>
          o.money.outcomeWaiting || (short !== undefined && o.supplier.news.toppedUp === true),
        cancelReturns: true,
        brief: short === undefined && !outwaited,
        ...(bound !== undefined && {
          timeout: short ? Math.max(bound, FUNDS_BOUND_MS) : bound,
          ...(!boundAtStart && { flushAfter: BRIEF_WAIT }),
        }),
      },
    );
    let lost = false;
    if (action?.kind === 'cancel') {
      o.actions.holdCancel(action);
      withdrawing = true;
      lost = !(await signal(coordinatorId(), checkoutWithdrawSignal, {
        workflowId: workflowInfo().workflowId,
      }));
    } else if (action?.kind === 'resume') {
      await fundsNews({ kind: 'toppedUp' });
      o.actions.answer(action, 'reading the balance now');
    } else if (
      bound !== undefined &&
      !o.money.outcomeWaiting &&
      o.supplier.news.toppedUp !== true
    ) {
      lost = !(await stillHeld(acts));
      outwaited = boundAtStart;
    }
    if (!lost) continue;
    const settled = await withoutCoordinator(o, acts, withdrawing);
    if (settled === 'rejoined') short = undefined;
    else if (settled !== undefined) return settled;
  }
}

/** A cancel held while the coordinator was asked: refused for a shared shipment, else carried out. */
function releaseHandedBack(o: Order, news: Extract<Settled, { kind: 'alone' | 'intercepted' }>) {
  if (news.progress.shipmentOrderId !== undefined && bounded()) {
    o.money.confirmedInBatch(news.progress.shipmentOrderId, { siblings: news.progress.siblings });
  }
  const shared = o.money.shipmentRefusal;
  o.waits.releaseCancel(shared === undefined ? undefined : `cancel refused: ${shared}`);
}

/**
 * Past its bound: whether the coordinator still holds the order (then it waits another bound).
 * Unanswered (the orders queue's workers down): asked again after the next bound.
 */
async function stillHeld(acts: Activities): Promise<boolean> {
  try {
    const where = await acts.orchestration.checkoutMember(
      workflowInfo().workflowId,
      ...ownAccount(),
    );
    return where.state !== 'gone' && where.state !== 'unknown';
  } catch (err) {
    if (err instanceof ActivityFailure) return true;
    throw err;
  }
}

/** The bound its starter gave the order (CHECKOUT_BOUND_MEMO); the least bound without one. */
function startBound(): number {
  const given = workflowInfo().memo?.[CHECKOUT_BOUND_MEMO];
  return typeof given === 'number' && Number.isFinite(given) && given >= 1_000
    ? given
    : MIN_ORDER_BOUND_MS;
}

/** How long the order waits on its coordinator before asking; a wait for funds, longer. */
async function waitBound(acts: Activities, forFunds: boolean): Promise<number> {
  let bound = MIN_ORDER_BOUND_MS;
  try {
    bound = await acts.orchestration.checkoutWaitBound();
  } catch (err) {
    if (!(err instanceof ActivityFailure)) throw err;
  }
  // Funds may take days: asked no more often than the coordinator reads the balance by default.
  return forFunds ? Math.max(bound, FUNDS_BOUND_MS) : bound;
}

/**
 * The coordinator holds the order no more (terminated, reset, or it lost the order) and no
 * outcome came. Re-joining is safe only if no mutating call of a batch included the order — and
 * only the supplier can tell: a batch's addCart may even land after its coordinator was
 * terminated (an activity runs on). So the batch's cart is an unknown outcome, settled by the
 * order's own reconciling look-up, which waits out the supplier's lag: not in the cart, the order
 * re-joins (undefined: wait again); in it, the order goes on alone from what the supplier shows
 * (a confirmation or payment it does not know is looked up before anything is sent). A
 * confirmed shipment that waited for funds goes on alone, its payment looked up first. A held
 * cancel goes on where nothing confirmed is at stake; it is refused otherwise.
 */
async function withoutCoordinator(
  o: Order,
  acts: Activities,
  withdrawing: boolean,
): Promise<Settled | 'rejoined' | undefined> {
  o.view.note('its checkout coordinator does not hold it: the supplier shows what its batch did');
  const shipmentOrderId = o.view.status.shipmentOrderId;
  if (shipmentOrderId !== undefined) {
    // Its coordinator may have been paying the shipment when it went: in doubt, no cancel.
    o.waits.outcomeUnknown(PAYMENT_STEP);
    if (withdrawing) o.waits.releaseCancel();
    return {
      kind: 'alone',
      why: `its checkout coordinator is gone while shipment ${shipmentOrderId} waited for funds`,
      progress: {
        inCart: true,
        shipmentOrderId,
        ...(o.money.siblings.length > 0 && { siblings: [...o.money.siblings] }),
        unknownStep: PAYMENT_STEP,
      },
    };
  }
  o.waits.outcomeUnknown(CART_STEP);
  const seen = await settleOutcome(o.waits, CART_STEP, () =>
    orderReached(o, acts, OrderStatus.InCart),
  );
  o.waits.outcomeSettled(seen.done);
  // Its outcome came after all (the coordinator was slow, not gone): the wait takes it.
  if (o.money.outcomeWaiting) return undefined;
  if (!seen.done) {
    if (withdrawing) o.waits.releaseCancel();
    o.view.note('not carted by any batch: joining its checkout again');
    await join(o, acts);
    return 'rejoined';
  }
  const status = seen.value?.orderStatus ?? o.supplier.news.orderStatus;
  const confirmed = reachedStatus(status, OrderStatus.Unpaid);
  // A batch that carted it may have confirmed and paid it since the moment the supplier's view
  // shows: the confirmation is looked up before the order confirms (Patch.ConfirmLookedUp).
  const confirmUnknown = confirmed || has(Patch.ConfirmLookedUp);
  if (withdrawing) {
    o.waits.releaseCancel(
      confirmed
        ? `cancel refused: its checkout batch confirmed it at the supplier (${status}), which deletes no confirmed order; it goes on alone`
        : undefined,
    );
  }
  return {
    kind: 'alone',
    why: `its checkout coordinator is gone and the supplier shows the order ${status ?? 'in the cart'}`,
    progress: { inCart: true, ...(confirmUnknown && { unknownStep: CONFIRM_STEP }) },
  };
}

/**
 * The balance is short for an order paying alone: the account's coordinator reads the balance
 * for every waiting order and says when it covers this one; a top-up, resume or cancel also end
 * the wait, and so does a sibling's word that the shared shipment is paid.
 */
async function fundsFromCoordinator(
  o: Order,
  acts: Activities,
  amount: number | undefined,
  refusal: FailureInfo,
): Promise<void> {
  o.supplier.awaitTopUp();
  o.view.enter(Stage.AWAITING_FUNDS);
  o.view.failed(refusal);
  const workflowId = workflowInfo().workflowId;
  const shipmentOrderId = o.view.status.shipmentOrderId;
  const wait: FundsNews | undefined =
    amount === undefined
      ? undefined
      : {
          kind: 'wait',
          workflowId,
          amount,
          since: new Date().toISOString(),
          ...(shipmentOrderId !== undefined && bounded() && { shipmentOrderId }),
        };
  // Without its coordinator the order checks the balance itself.
  if (wait !== undefined && !(await fundsNews(wait))) return awaitFunds(o, acts, amount, refusal);
  const covered = () => {
    for (let n = o.money.nextOutcome(); n !== undefined; n = o.money.nextOutcome()) {
      if (n.kind === 'fundsAvailable') return true;
    }
    return false;
  };
  const toppedUp = () => o.supplier.news.toppedUp === true;
  const bound = bounded() ? await waitBound(acts, true) : undefined;
  for (;;) {
    const action = await o.waits.at(
      Stage.AWAITING_FUNDS,
      `a balance top-up of at least ${amount ?? 'the order amount'} USD (makeup payment), resume, or cancel`,
      ['resume'],
      {
        until: () => toppedUp() || o.money.outcomeWaiting || o.money.siblingPayment !== undefined,
        ...(bound !== undefined && { timeout: bound }),
      },
    );
    if (action) o.actions.answer(action, 'retrying payment');
    else if (o.money.siblingPayment !== undefined)
      o.view.note('another order of its shipment paid it');
    else if (toppedUp()) o.view.note('balance topped up');
    else if (!o.money.outcomeWaiting && wait !== undefined && bound !== undefined) {
      // Past the bound: told again (a coordinator that holds it changes nothing), or on its own.
      if (await fundsNews(wait)) continue;
      return awaitFunds(o, acts, amount, refusal);
    } else if (!covered()) continue;
    else o.view.note('the balance covers the payment');
    if (amount !== undefined) await fundsNews({ kind: 'stopWaiting', workflowId });
    return;
  }
}
