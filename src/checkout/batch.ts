/**
 * One checkout batch: addCart and addCartConfirm over all its orders, then the parent order and
 * its payment, each call through the reconciling supplier step (durable/supplierStep.ts). Every
 * order leaves with its own outcome: paid; intercepted (with the supplier's reasons); short of
 * funds; or handed back to go on alone — whenever the batch cannot settle something itself (an
 * unanswered cart call, a failure a person must see), the orders continue from where the batch
 * got, and each one's own reconciling steps look up what is unknown before sending anything.
 */
import { condition, getExternalWorkflowHandle, log, patched, sleep } from '@temporalio/workflow';
import type { Reason } from '../supplier/interception.js';
import type { FailureInfo } from '../supplier/failureDetails.js';
import { OrderStatus, reachedStatus } from '../supplier/api/constants.js';
import type { Activities } from '../durable/activityProxies.js';
import { supplierCall, type Seen } from '../durable/supplierStep.js';
import type { OutcomeInDoubt, StepHost } from '../durable/stepHost.js';
import { backoff } from '../durable/failures.js';
import { Patch } from '../durable/versions.js';
import type { BatchCartOutcome } from './batchActivities.js';
import { confirmedShipment, takenByCall, type BatchTaken } from './batchLookUp.js';
import {
  checkoutOutcomeSignal,
  type CheckoutOutcome,
  type CheckoutProgress,
  type ReadyOrder,
} from './contract.js';
import { checkoutBudgets } from '../terms/checkoutSettings.js';
import type { BatchView, CheckoutState } from './state.js';
import { sendPayment } from '../durable/shipmentPayment.js';
import { marginLeavers } from './marginBatch.js';

/**
 * The batch cannot go on by itself: its orders go on alone. `stops`: the outcome of a call is
 * unknown and its look-up kept failing; each order stops for a person with that failure.
 */
class HandBack extends Error {
  constructor(
    readonly failure: FailureInfo,
    readonly options: { stops?: boolean } = {},
  ) {
    super(failure.message);
  }
}

/** The batch as the supplier step's host: a stop for a person hands the orders back instead. */
class BatchHost implements StepHost {
  private unknown: OutcomeInDoubt | undefined;

  constructor(
    private readonly c: CheckoutState,
    private readonly batch: BatchView,
    readonly supplierLagMs: number,
  ) {}

  checkCancel(): void {}
  unknownOutcome(): OutcomeInDoubt | undefined {
    return this.unknown;
  }
  outcomeUnknown(step: string): void {
    this.unknown ??= { step, since: new Date().toISOString() };
  }
  outcomeSettled(): void {
    this.unknown = undefined;
  }
  note(text: string): void {
    log.info(`checkout ${this.batch.id}: ${text}`);
  }
  waitFor(what: string): void {
    this.c.batchAt(this.batch, this.batch.step, what);
  }
  doneWaiting(): void {
    this.c.batchAt(this.batch, this.batch.step);
  }
  async needsAttention(info: FailureInfo): Promise<void> {
    if (!isLookUp(info)) throw new HandBack(info);
    // A look-up that keeps failing stops each order for a person, as an order's own would.
    if (patched(Patch.BatchLookUpBounded)) throw new HandBack(info, { stops: true });
    // Batches under Patch.BatchLookUp alone looked it up again a few rounds first.
    if (this.lookUpRounds < LOOK_UP_ROUNDS && patched(Patch.BatchLookUp)) {
      this.lookUpRounds += 1;
      this.note(`${info.message}; looking it up again`);
      await sleep(backoff(this.lookUpRounds + 2));
      return;
    }
    throw new HandBack(info);
  }

  /** Whether the supplier's view had the lag to catch up since the outcome became unknown. */
  caughtUp(): boolean {
    const now = new Date().getTime();
    const since = this.unknown === undefined ? now : Date.parse(this.unknown.since);
    return now - since >= this.supplierLagMs;
  }

  private lookUpRounds = 0;
}

/** Rounds of a batch's failing look-up under Patch.BatchLookUp alone (kept for its histories). */
const LOOK_UP_ROUNDS = 3;

const isLookUp = (info: FailureInfo) => info.step.endsWith(' look-up');

/** A cart call settled by the batch's look-up: the orders the supplier refused go on alone. */
type CartStep = BatchCartOutcome & { shipmentOrderId?: string; refused?: ReadyOrder[] };

/**
 * A lost answer to a cart call, settled by one look-up for the whole batch (batchLookUp.ts);
 * batches under way before Patch.BatchLookUp hand their orders back as they did.
 */
function lookUpBatch(
  host: BatchHost,
  step: string,
  lookUp: (caughtUp: boolean) => Promise<Seen<CartStep>>,
): () => Promise<Seen<CartStep>> {
  return async () => {
    if (!patched(Patch.BatchLookUp)) return eachOrderLooksUp(step)();
    const seen = await lookUp(host.caughtUp());
    if (seen.done && seen.note !== undefined) host.note(seen.note);
    return seen;
  };
}

const found = (step: string, shown: BatchTaken, extra: Partial<CartStep> = {}): Seen<CartStep> => ({
  done: true,
  value: { intercepted: [], refused: shown.refused, ...extra },
  note: `${step} found done for ${shown.taken.length} order(s) of the batch, ${shown.refused.length} refused`,
});

/** For a call the batch does not settle itself: each order looks it up on its own. */
const eachOrderLooksUp = (step: string) => (): Promise<never> =>
  Promise.reject(
    new HandBack({
      step,
      message: `${step} for the batch got no answer; each order looks its own outcome up`,
    }),
  );

/** Tells an order its outcome, paced; the coordinator does not continue as new before it ends. */
export async function tell(
  c: CheckoutState,
  workflowId: string,
  outcome: CheckoutOutcome,
): Promise<void> {
  c.tellOwed();
  // Outcomes signalled at once, at most (the settings' `outcomesInFlight`): Temporal fails a
  // workflow task past its pending outgoing signals (2,000 by default), and a release of a long
  // funds list could otherwise ask for more. Checked again after each wait: one wake frees a slot
  // for one tell, not for all that wait. Bounded: every tell in flight is one signal, which the
  // server answers or refuses.
  const room = () => c.tellsInFlight < checkoutBudgets(c.settings).outcomesInFlight;
  while (!room()) await condition(room);
  c.tellStarted();
  try {
    await getExternalWorkflowHandle(workflowId).signal(checkoutOutcomeSignal, outcome);
  } catch (err) {
    // The order was terminated by hand: nobody is left to tell.
    log.warn(`checkout: could not tell ${workflowId}: ${String(err)}`);
  } finally {
    c.tellEnded();
  }
}

/** The other orders of the batch's shipment, for outcomes that hand a confirmed shipment back. */
function siblingsOf(batch: BatchView, order: ReadyOrder): string[] {
  return batch.orders.filter((o) => o !== order).map((o) => o.workflowId);
}

const ids = (orders: readonly ReadyOrder[]) => orders.map((o) => o.svcOrderId);
const lagOf = (orders: readonly ReadyOrder[]) => Math.max(0, ...orders.map((o) => o.lagMs));
const sumOf = (orders: readonly ReadyOrder[]): number | undefined =>
  orders.every((o) => o.amount !== undefined)
    ? Math.round(orders.reduce((s, o) => s + o.amount!, 0) * 100) / 100
    : undefined;

async function release(
  c: CheckoutState,
  batch: BatchView,
  orders: readonly ReadyOrder[],
  outcome: CheckoutOutcome,
): Promise<void> {
  c.released(
    batch,
    orders.map((o) => o.workflowId),
    outcome,
  );
  await Promise.all(orders.map((o) => tell(c, o.workflowId, outcome)));
}

/** Every order of a confirmed shipment leaves with its own outcome, naming its siblings. */
async function releaseShipment(
  c: CheckoutState,
  batch: BatchView,
  outcomeFor: (siblings: string[]) => CheckoutOutcome,
): Promise<void> {
  const orders = [...batch.orders];
  const outcomes = orders.map((o) => outcomeFor(siblingsOf(batch, o)));
  const workflowIds = orders.map((o) => o.workflowId);
  if (outcomes[0] !== undefined) c.released(batch, workflowIds, outcomes[0]);
  await Promise.all(orders.map((o, i) => tell(c, o.workflowId, outcomes[i]!)));
}

/** Orders the supplier stopped leave the batch with their own reasons. */
async function releaseIntercepted(
  c: CheckoutState,
  batch: BatchView,
  step: string,
  intercepted: readonly { svcOrderId: string; reasons: Reason[] }[],
  progress: CheckoutProgress,
): Promise<void> {
  await Promise.all(
    intercepted.flatMap(({ svcOrderId, reasons }) => {
      const order = batch.orders.find((o) => o.svcOrderId === svcOrderId);
      return order === undefined
        ? []
        : [release(c, batch, [order], { kind: 'intercepted', step, reasons, progress })];
    }),
  );
}

/**
 * Orders a batch call's look-up shows the supplier did not take: each goes on alone from where
 * the batch got, and its own call says why (an interception, with the supplier's reasons).
 */
async function releaseRefused(
  c: CheckoutState,
  batch: BatchView,
  step: string,
  refused: readonly ReadyOrder[] | undefined,
  progress: CheckoutProgress,
): Promise<void> {
  const left = batch.orders.filter((o) => refused?.some((r) => r.svcOrderId === o.svcOrderId));
  if (left.length === 0) return;
  await release(c, batch, left, {
    kind: 'alone',
    why: `the supplier did not take it at ${step} with its batch ${batch.id}`,
    progress: { ...progress },
  });
}

/** Runs a new batch from the cart to the payment. */
export function runBatch(c: CheckoutState, acts: Activities, batch: BatchView): Promise<void> {
  return settled(c, batch, {}, async (host, progress) => {
    if (c.fundsShort) await coverable(c, acts, host, batch);
    if (batch.orders.length === 0) return;

    c.committing(batch, 'addCart');
    const cart = await supplierCall<CartStep>(host, {
      name: 'addCart',
      send: () => acts.supplierOnce.addCartBatch(ids(batch.orders)),
      lookUp: lookUpBatch(host, 'addCart', async (caughtUp) => {
        const seen = await takenByCall(acts, batch.orders, OrderStatus.InCart, caughtUp);
        return seen.done ? found('addCart', seen.value) : seen;
      }),
    });
    await releaseIntercepted(c, batch, 'addCart', cart.value.intercepted, progress);
    await releaseRefused(c, batch, 'addCart', cart.value.refused, progress);
    if (batch.orders.length === 0) return;
    progress.inCart = true;
    // Before the shipment is confirmed: orders whose margin rule fails leave it.
    for (const { order, outcome } of await marginLeavers(host, acts, batch.orders)) {
      await release(c, batch, [order], outcome);
    }
    if (batch.orders.length === 0) return;

    c.batchAt(batch, 'addCartConfirm');
    const confirmed = await supplierCall<CartStep>(host, {
      name: 'addCartConfirm',
      send: () => acts.supplierOnce.addCartConfirmBatch(ids(batch.orders)),
      lookUp: lookUpBatch(host, 'addCartConfirm', async (caughtUp) => {
        const seen = await takenByCall(acts, batch.orders, OrderStatus.Unpaid, caughtUp);
        if (!seen.done) return seen;
        const shipment = await confirmedShipment(acts, batch.orders, seen.value);
        // The supplier's answers disagree: each order looks its own confirmation up.
        if (shipment === undefined) return eachOrderLooksUp('addCartConfirm')();
        return found('addCartConfirm', shipment, { shipmentOrderId: shipment.shipmentOrderId });
      }),
    });
    await releaseIntercepted(c, batch, 'addCartConfirm', confirmed.value.intercepted, progress);
    await releaseRefused(c, batch, 'addCartConfirm', confirmed.value.refused, progress);
    if (batch.orders.length === 0) return;
    progress.shipmentOrderId = confirmed.value.shipmentOrderId!;
    await payShipment(c, acts, host, batch, progress);
  });
}

/** Pays a shipment released from the funds list. */
export function resumePayment(
  c: CheckoutState,
  acts: Activities,
  batch: BatchView,
  shipmentOrderId: string,
): Promise<void> {
  return settled(c, batch, { inCart: true, shipmentOrderId }, (host, progress) =>
    payShipment(c, acts, host, batch, progress),
  );
}

/** Runs a batch's work; whatever it cannot settle hands its orders back; the batch ends. */
async function settled(
  c: CheckoutState,
  batch: BatchView,
  progress: CheckoutProgress,
  work: (host: BatchHost, progress: CheckoutProgress) => Promise<void>,
): Promise<void> {
  const host = new BatchHost(c, batch, lagOf(batch.orders));
  try {
    await work(host, progress);
  } catch (err) {
    if (!(err instanceof HandBack)) throw err;
    await handBack(c, batch, host, progress, err);
  } finally {
    c.batchFinished(batch);
  }
}

async function handBack(
  c: CheckoutState,
  batch: BatchView,
  host: BatchHost,
  progress: CheckoutProgress,
  { failure, options }: HandBack,
): Promise<void> {
  const unknown = host.unknownOutcome()?.step;
  const why =
    unknown !== undefined
      ? `the outcome of ${unknown} for its batch ${batch.id} is unknown`
      : `its batch ${batch.id} stopped at ${failure.step}`;
  const outcome = (siblings?: string[]): CheckoutOutcome => ({
    kind: 'alone',
    why,
    progress: {
      ...progress,
      ...(siblings !== undefined && { siblings }),
      ...(unknown !== undefined && { unknownStep: unknown }),
    },
    ...((unknown === undefined || options.stops === true) && { failure }),
  });
  // A scattered batch costs each order its own calls: a warning says why.
  log.warn(
    `checkout ${batch.id}: its ${batch.orders.length} order(s) go on alone: ${why} (${failure.message})`,
  );
  if (progress.shipmentOrderId === undefined) await release(c, batch, batch.orders, outcome());
  else await releaseShipment(c, batch, outcome);
}

/**
 * While orders wait for funds, a new batch takes only what the balance covers (oldest first);
 * the rest wait with them. Read once per batch, only then.
 */
async function coverable(
  c: CheckoutState,
  acts: Activities,
  host: BatchHost,
  batch: BatchView,
): Promise<void> {
  c.batchAt(batch, 'getBalance');
  const read = await supplierCall(host, {
    name: 'getBalance',
    send: () => acts.supplier.getBalance(),
  });
  c.balanceRead(read.value);
  let left = read.value;
  const fit: ReadyOrder[] = [];
  for (const order of batch.orders) {
    const amount = order.amount ?? 0;
    if (amount > left) break;
    left -= amount;
    fit.push(order);
  }
  const short = batch.orders.slice(fit.length);
  if (short.length === 0) return;
  c.ordersShort(short);
  await release(c, batch, short, {
    kind: 'awaitingFunds',
    why: `the balance (${read.value} USD) does not cover it after older orders`,
  });
}

/** The parent order of the batch's shipment, and its payment as shipmentPayment.ts decides. */
async function payShipment(
  c: CheckoutState,
  acts: Activities,
  host: BatchHost,
  batch: BatchView,
  progress: CheckoutProgress,
): Promise<void> {
  const shipmentOrderId = progress.shipmentOrderId!;
  const generate = async () => {
    c.batchAt(batch, 'saveGenerateParentOrder');
    // A repeat within the pay window answers the same payId and moves no money.
    const parent = await supplierCall(host, {
      name: 'saveGenerateParentOrder',
      send: () => acts.supplier.saveGenerateParentOrder(shipmentOrderId),
    });
    if (parent.value.intercepted) {
      throw new HandBack({
        step: 'saveGenerateParentOrder',
        message: `the supplier intercepted the parent order: ${parent.value.reasons.map((r) => r.message).join('; ')}`,
      });
    }
    progress.payId = parent.value.payId!;
    if (parent.value.payExpiresAt !== undefined) progress.payExpiresAt = parent.value.payExpiresAt;
    if (parent.value.amount !== undefined) progress.amount = parent.value.amount;
  };
  await generate();

  const decision = await sendPayment(host, acts, {
    parent: () => ({
      shipmentOrderId,
      payId: progress.payId!,
      expiresAt: progress.payExpiresAt,
    }),
    renew: generate,
    renewAfterDoubt: 'ifExpired',
    paidAtSupplier: () => batchPaid(acts, batch.orders),
    sending: () => {
      c.batchAt(batch, 'payBalanceV2');
    },
  });
  if (decision.next === 'paid') {
    const paid: CheckoutOutcome = {
      kind: 'paid',
      batchId: batch.id,
      shipmentOrderId,
      payId: progress.payId!,
      ...(decision.note !== undefined && { note: decision.note }),
    };
    await release(c, batch, batch.orders, paid);
    return;
  }
  // Short of funds: the shipment waits whole, as the supplier pays it only whole.
  const failure = decision.refusal;
  c.shipmentShort({
    batchId: batch.id,
    orders: [...batch.orders],
    shipmentOrderId,
    amount: progress.amount ?? sumOf(batch.orders),
    since: new Date().toISOString(),
  });
  const why = `the balance does not cover shipment ${shipmentOrderId} of ${batch.orders.length} orders`;
  await releaseShipment(c, batch, (siblings) => ({
    kind: 'awaitingFunds',
    why,
    failure,
    shipmentOrderId,
    siblings,
  }));
}

/**
 * Paid: the supplier shows every order of the batch UNSHIPPED or later. An order it no longer
 * lists may have been split at the payment (its children keep its order number, which only the
 * order knows): never read as unpaid, the batch hands its orders back, and each settles the
 * payment by its own look-up.
 */
async function batchPaid(
  acts: Activities,
  orders: readonly ReadyOrder[],
): Promise<Seen<string | undefined>> {
  const seen = await acts.batch.getOrderDetailBatch(ids(orders));
  const shown = (o: ReadyOrder) =>
    seen.find((s) => s.svcOrderId === o.svcOrderId || s.svcOrderCode === o.svcOrderId);
  if (orders.every((o) => reachedStatus(shown(o)?.orderStatus, OrderStatus.Unshipped))) {
    return { done: true, value: undefined, note: 'the supplier shows the batch paid' };
  }
  const gone = orders.filter((o) => shown(o) === undefined);
  if (gone.length > 0 && patched(Patch.SplitPayment)) {
    throw new HandBack({
      step: 'payBalanceV2',
      message: `the supplier no longer lists ${ids(gone).join(', ')} (split at its payment?); each order looks its payment up`,
    });
  }
  return { done: false };
}
