/**
 * One checkout batch: addCart and addCartConfirm over all its orders, then the parent order and
 * its payment, each call through the reconciling supplier step (src/durable/supplierStep.ts). Every
 * order leaves with its own outcome: paid; intercepted (with the supplier's reasons); short of
 * funds; or handed back to go on alone — whenever the batch cannot settle something itself (an
 * unanswered cart call, a failure a person must see), the orders continue from where the batch
 * got, and each one's own reconciling steps look up what is unknown before sending anything.
 */
import { getExternalWorkflowHandle, log } from '@temporalio/workflow';
import type { Reason } from '../../../supplier/interception.js';
import type { FailureInfo } from '../../../supplier/failureDetails.js';
import type { OutcomeInDoubt, StepHost } from '../../../durable/stepHost.js';
import type { CheckoutOutcome, CheckoutProgress, ReadyOrder } from '../../../checkout/contract.js';
import type { Activities } from '../../common/activityProxies.js';
import { checkoutOutcomeSignal } from '../../common/contracts.js';
import { failureInfo, isBusiness } from '../../common/failures.js';
import { OrderStatus, reachedStatus, SupplierCode } from '../../common/supplier.js';
import { supplierCall, supplierStep, type Seen } from '../../common/supplierStep.js';
import type { BatchView, CheckoutState } from './state.js';

/** The batch cannot go on by itself: its orders go on alone. */
class HandBack extends Error {
  constructor(readonly failure: FailureInfo) {
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
  needsAttention(info: FailureInfo): Promise<void> {
    return Promise.reject(new HandBack(info));
  }
}

/** For a call the batch does not settle itself: each order looks it up on its own. */
const eachOrderLooksUp = (step: string) => (): Promise<never> =>
  Promise.reject(
    new HandBack({
      step,
      message: `${step} for the batch got no answer; each order looks its own outcome up`,
    }),
  );

export async function tell(workflowId: string, outcome: CheckoutOutcome): Promise<void> {
  try {
    await getExternalWorkflowHandle(workflowId).signal(checkoutOutcomeSignal, outcome);
  } catch (err) {
    // The order was terminated by hand: nobody is left to tell.
    log.warn(`checkout: could not tell ${workflowId}: ${String(err)}`);
  }
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
  await Promise.all(orders.map((o) => tell(o.workflowId, outcome)));
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

/** Runs a new batch from the cart to the payment. */
export function runBatch(c: CheckoutState, acts: Activities, batch: BatchView): Promise<void> {
  return settled(c, batch, {}, async (host, progress) => {
    if (c.fundsShort) await coverable(c, acts, host, batch);
    if (batch.orders.length === 0) return;

    c.batchAt(batch, 'addCart');
    const cart = await supplierCall(host, {
      name: 'addCart',
      send: () => acts.supplierOnce.addCartBatch(ids(batch.orders)),
      lookUp: eachOrderLooksUp('addCart'),
    });
    await releaseIntercepted(c, batch, 'addCart', cart.value.intercepted, progress);
    if (batch.orders.length === 0) return;
    progress.inCart = true;

    c.batchAt(batch, 'addCartConfirm');
    const confirmed = await supplierCall(host, {
      name: 'addCartConfirm',
      send: () => acts.supplierOnce.addCartConfirmBatch(ids(batch.orders)),
      lookUp: eachOrderLooksUp('addCartConfirm'),
    });
    await releaseIntercepted(c, batch, 'addCartConfirm', confirmed.value.intercepted, progress);
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
    await handBack(c, batch, host, progress, err.failure);
  } finally {
    c.batchFinished(batch);
  }
}

async function handBack(
  c: CheckoutState,
  batch: BatchView,
  host: BatchHost,
  progress: CheckoutProgress,
  failure: FailureInfo,
): Promise<void> {
  const unknown = host.unknownOutcome()?.step;
  const outcome: CheckoutOutcome = {
    kind: 'alone',
    why:
      unknown !== undefined
        ? `the outcome of ${unknown} for its batch ${batch.id} is unknown`
        : `its batch ${batch.id} stopped at ${failure.step}`,
    progress: { ...progress, ...(unknown !== undefined && { unknownStep: unknown }) },
    ...(unknown === undefined && { failure }),
  };
  await release(c, batch, batch.orders, outcome);
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

/** The parent order of the batch's shipment and its payment. */
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

  let doubted = false;
  const expired = () =>
    progress.payExpiresAt !== undefined &&
    new Date().getTime() >= Date.parse(progress.payExpiresAt);
  if (expired()) await generate();
  c.batchAt(batch, 'payBalanceV2');
  const result = await supplierStep(host, {
    name: 'payBalanceV2',
    send: () => acts.supplierOnce.payBalanceV2({ shipmentOrderId, payId: progress.payId! }),
    lookUp: () => {
      doubted = true;
      return batchPaid(acts, batch.orders);
    },
    beforeResend: async () => {
      doubted = false;
      if (expired()) await generate();
    },
    doubtful: (f) =>
      isBusiness(f, SupplierCode.PayFailed) ||
      (doubted && isBusiness(f, SupplierCode.InsufficientBalance)),
    expected: (f) => isBusiness(f, SupplierCode.InsufficientBalance),
    cancellable: false,
  });
  if (result.ok) {
    const paid: CheckoutOutcome = {
      kind: 'paid',
      batchId: batch.id,
      shipmentOrderId,
      payId: progress.payId!,
      ...(result.found && { note: `paid (${result.note ?? 'found at the supplier'})` }),
    };
    await release(c, batch, batch.orders, paid);
    return;
  }
  // 1604000 with nothing in doubt: the shipment waits whole, as the supplier pays it only whole.
  const failure = failureInfo('payBalanceV2', result.failure);
  c.shipmentShort({
    batchId: batch.id,
    orders: [...batch.orders],
    shipmentOrderId,
    amount: progress.amount ?? sumOf(batch.orders),
    since: new Date().toISOString(),
  });
  await release(c, batch, batch.orders, {
    kind: 'awaitingFunds',
    why: `the balance does not cover shipment ${shipmentOrderId} of ${batch.orders.length} orders`,
    failure,
    shipmentOrderId,
  });
}

/** Paid: the supplier shows every order of the batch UNSHIPPED or later. */
async function batchPaid(
  acts: Activities,
  orders: readonly ReadyOrder[],
): Promise<Seen<string | undefined>> {
  const seen = await acts.batch.getOrderDetailBatch(ids(orders));
  const paid = orders.every((o) =>
    seen.some(
      (s) =>
        (s.svcOrderId === o.svcOrderId || s.svcOrderCode === o.svcOrderId) &&
        reachedStatus(s.orderStatus, OrderStatus.Unshipped),
    ),
  );
  return paid
    ? { done: true, value: undefined, note: 'the supplier shows the batch paid' }
    : { done: false };
}
