/**
 * `accountCheckout`: one per supplier account (id `checkout:<account>`), on the account's orders
 * queue. Orders that are created and approved for payment join it; it closes a batch when no
 * order joined for `quietMs`, when the first waited `maxWaitMs`, or at `maxBatch` orders — so a
 * lone order waits a couple of seconds while a backlog, which holds the budget anyway, fills
 * batches — and runs each batch's four supplier calls once: addCart and addCartConfirm over all
 * its orders, then the parent order and its payment (durable/shipmentPayment.ts), each through
 * the reconciling supplier step. Every order leaves its batch with its own outcome, signal
 * `checkoutOutcome` (a release's orders told by one activity, tellActivities.ts): paid;
 * intercepted (with the supplier's reasons); short of funds; or handed back to go on alone — whenever the batch cannot settle something itself (an unanswered
 * cart call, a failure a person must see: batchLookUp.ts), the orders continue from where the
 * batch got, and each one's own reconciling steps look up what is unknown before sending
 * anything. It also watches the balance for every order of the account that waits for funds. It
 * never fails.
 *
 * It continues as new when Temporal suggests it, or once this run received `signalsPerRun`
 * signals or holds `historyPerRun` events (budgets of its settings: CHECKOUT_SIGNALS_PER_RUN,
 * CHECKOUT_HISTORY_PER_RUN) — whether or not batches are under way. Then it drains:
 * it starts no batch and no balance read, lets the batches under way end (each is bounded by its
 * reconciling steps, and lagging ones raise a metric), and carries everything else over.
 * Batches stay in this workflow rather than in child workflows: a batch is four calls, draining
 * it takes seconds, and its orders' outcomes and cancels stay decided in one place (the state), so
 * `withdrawn` and `paid` can never both reach an order.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  metricMeter,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Reason } from '../supplier/interception.js';
import { OrderStatus, reachedStatus } from '../supplier/api/constants.js';
import { counterOf, METRICS } from '../telemetry/metrics.js';
import { activities, outcomeTelling, type Activities } from '../durable/activityProxies.js';
import { supplierCall, type Seen } from '../durable/supplierStep.js';
import type { StepHost } from '../durable/stepHost.js';
import { followAccountTier, workflowAccount } from '../durable/account.js';
import { Patch } from '../durable/versions.js';
import { sendPayment } from '../durable/shipmentPayment.js';
import {
  BatchHost,
  confirmedShipment,
  eachOrderLooksUp,
  found,
  HandBack,
  ids,
  lookUpBatch,
  takenByCall,
  type CartStep,
} from './batchLookUp.js';
import {
  checkoutFundsSignal,
  checkoutMemberQuery,
  checkoutReadyManySignal,
  checkoutReadySignal,
  checkoutSettingsSignal,
  checkoutStatusQuery,
  checkoutWithdrawSignal,
  checkoutOutcomeSignal,
  type CheckoutOutcome,
  type CheckoutProgress,
  type OutcomeTold,
  type ReadyOrder,
  TELL_INCOMPLETE,
} from './contract.js';
import {
  checkoutBudgets,
  DEFAULT_CHECKOUT_SETTINGS,
  type CheckoutSettings,
} from '../terms/checkoutSettings.js';
import { CheckoutState, type BatchView, type CheckoutCarryOver } from './state.js';
import { marginLeavers } from './marginBatch.js';
import { has } from '../durable/patches.js';

/** Batches under way at once: one may wait for a look-up while the next goes on. */
export const MAX_BATCHES_IN_FLIGHT = 3;

/** When a run ends, and when a waiting batch counts as lagging. */
export interface CheckoutLimits {
  /** Signals received after which the run drains (Temporal refuses more than 10,000 per run). */
  signalsPerRun: number;
  /** History events after which the run drains (Temporal's hard limit is 51,200). */
  historyPerRun: number;
  /** A batch waiting (a look-up, the rate limit) this long raises a metric and shows `lagging`. */
  lagBoundMs: number;
}

const LAG_BOUND_MS = 10 * 60_000;

export interface CheckoutInput {
  settings?: CheckoutSettings;
  /** State carried over from the previous run. */
  carried?: CheckoutCarryOver;
  /** Over the budgets of the settings (tests set smaller ones). */
  limits?: Partial<CheckoutLimits>;
}

/** The run's limits now: its settings' budgets (a settings signal may change them), `override` first. */
function limitsOf(c: CheckoutState, override: Partial<CheckoutLimits> | undefined): CheckoutLimits {
  const { signalsPerRun, historyPerRun } = checkoutBudgets(c.settings);
  return { signalsPerRun, historyPerRun, lagBoundMs: LAG_BOUND_MS, ...override };
}

export async function accountCheckout(input: CheckoutInput = {}): Promise<void> {
  const c = new CheckoutState(
    input.carried ?? {
      settings: input.settings ?? DEFAULT_CHECKOUT_SETTINGS,
      queue: [],
      funds: [],
      batchesDone: 0,
      ordersPaid: 0,
      nextBatch: 0,
    },
    has(Patch.OutcomesByActivity),
  );
  const acts = activities();
  setHandler(checkoutReadySignal, (order) => {
    c.signalled();
    c.ready(order);
  });
  setHandler(checkoutReadyManySignal, (orders) => {
    // A run on older code had no handler (the SDK held the signal, and its replay must not act).
    if (!has(Patch.ReadyBatched)) return;
    c.signalled();
    for (const order of orders) c.ready(order);
  });
  setHandler(checkoutSettingsSignal, (settings) => {
    c.signalled();
    c.configure(settings);
  });
  setHandler(checkoutFundsSignal, (news) => {
    c.signalled();
    c.fundsNews(news);
  });
  setHandler(checkoutWithdrawSignal, async ({ workflowId }) => {
    c.signalled();
    await tell(c, workflowId, c.withdraw(workflowId));
  });
  setHandler(checkoutStatusQuery, () => c.view());
  followAccountTier();
  setHandler(checkoutMemberQuery, (workflowId) => c.member(workflowId));

  for (;;) {
    // Taken first: whatever wakes the loop while it works makes it look again at once.
    const seen = c.wakeVersion;
    const limits = limitsOf(c, input.limits);
    const now = new Date().getTime();
    const draining = runIsFull(c, limits);
    if (!draining) {
      while (c.batchDue(now) && c.batchesInFlight < MAX_BATCHES_IN_FLIGHT) {
        void runBatch(c, acts, c.takeBatch());
      }
      if (c.becameFull(now, MAX_BATCHES_IN_FLIGHT)) batchesFull(c);
      if (c.fundsCheckDue(now)) await checkFunds(c, acts);
    }
    lagging(c, new Date().getTime(), limits.lagBoundMs);
    const wait = c.nextWakeMs(
      new Date().getTime(),
      !draining && c.batchesInFlight < MAX_BATCHES_IN_FLIGHT,
      limits.lagBoundMs,
      !draining,
    );
    if (draining) {
      // Nothing due (no timer): the batches under way end through their own bounded steps, and
      // the orders they hold wait on their own bounds (checkoutMember) meanwhile.
      const drained = () => c.idle && allHandlersFinished();
      if (wait === undefined) await condition(drained);
      else if (!(await condition(drained, wait))) continue;
      const { carried, leftOut } = c.carryOver();
      if (leftOut > 0) {
        counterOf(metricMeter, METRICS.checkoutOrdersLeftOut).add(leftOut);
        log.warn(`checkout: ${leftOut} unconfirmed orders left out of the next run; they re-join`);
      }
      await continueAsNew<typeof accountCheckout>({
        carried,
        ...(input.limits !== undefined && { limits: input.limits }),
      });
    }
    // A full run wakes it too: signals that change nothing due (an order joining a queue that
    // waits already) must not leave it asleep on a long timer past its budget.
    const woken = () => c.wakeVersion !== seen || runIsFull(c, limits);
    if (wait === undefined) await condition(woken);
    else await condition(woken, wait);
  }
}

function runIsFull(c: CheckoutState, limits: CheckoutLimits): boolean {
  const info = workflowInfo();
  return (
    info.continueAsNewSuggested ||
    info.historyLength >= limits.historyPerRun ||
    c.signalsReceived >= limits.signalsPerRun
  );
}

function batchesFull(c: CheckoutState): void {
  counterOf(metricMeter, METRICS.checkoutBatchesFull).add(1);
  log.warn(
    `checkout: ${MAX_BATCHES_IN_FLIGHT} batches under way, orders wait for the next: ${c
      .view()
      .batches.map((b) => `${b.id} at ${b.step}${b.waitingFor ? ` (${b.waitingFor})` : ''}`)
      .join('; ')}`,
  );
}

function lagging(c: CheckoutState, now: number, boundMs: number): void {
  for (const b of c.newlyLagging(now, boundMs)) {
    counterOf(metricMeter, METRICS.checkoutBatchesLagging).add(1, {
      step: b.step,
      account: workflowAccount(),
    });
    log.warn(
      `checkout batch ${b.id} waits at ${b.step} past ${Math.round(boundMs / 1000)} s (${b.waitingFor ?? ''}); its orders: ${b.orders.map((o) => o.workflowId).join(', ')}`,
    );
  }
}

/** The balance watcher: one read, and what it covers goes on, oldest first. */
async function checkFunds(c: CheckoutState, acts: Activities): Promise<void> {
  const host = fundsHost();
  const topUps = c.fundsCheckStarted();
  let balance: number;
  try {
    balance = (
      await supplierCall(host, { name: 'getBalance', send: () => acts.supplier.getBalance() })
    ).value;
  } catch (err) {
    if (!(err instanceof FundsCheckFailed)) throw err;
    c.fundsCheckFailed(topUps);
    return;
  }
  const told: OutcomeTold[] = [];
  // A run that signals per order does so in the loop, as it always did (its history has them so).
  const covered = (workflowId: string) => {
    const outcome: CheckoutOutcome = { kind: 'fundsAvailable', balance };
    if (c.outcomesByActivity) told.push({ workflowId, outcome });
    else void tell(c, workflowId, outcome);
  };
  for (const item of c.release(balance, topUps)) {
    if (item.kind === 'orders') c.requeue([item.order]);
    else if (item.kind === 'waiter') covered(item.workflowId);
    else if (item.kind === 'shipmentWaiters') item.workflowIds.forEach(covered);
    else {
      void resumePayment(c, acts, c.resumeShipment(item.shipment), item.shipment.shipmentOrderId);
    }
  }
  if (told.length > 0) void tellAll(c, told);
}

class FundsCheckFailed extends Error {}

/** A balance read that fails is tried again at the next check; nobody is stopped for it. */
function fundsHost(): StepHost {
  return {
    checkCancel: () => undefined,
    unknownOutcome: () => undefined,
    outcomeUnknown: () => undefined,
    outcomeSettled: () => undefined,
    note: () => undefined,
    waitFor: () => undefined,
    doneWaiting: () => undefined,
    supplierLagMs: 0,
    needsAttention: () => Promise.reject(new FundsCheckFailed()),
  };
}

// ---- a batch, from the cart to the payment -------------------------------------------------

const lagOf = (orders: readonly ReadyOrder[]) => Math.max(0, ...orders.map((o) => o.lagMs));
const sumOf = (orders: readonly ReadyOrder[]): number | undefined =>
  orders.every((o) => o.amount !== undefined)
    ? Math.round(orders.reduce((s, o) => s + o.amount!, 0) * 100) / 100
    : undefined;

/** Runs a new batch from the cart to the payment. */
function runBatch(c: CheckoutState, acts: Activities, batch: BatchView): Promise<void> {
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
function resumePayment(
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
  if (gone.length > 0 && has(Patch.SplitPayment)) {
    throw new HandBack({
      step: 'payBalanceV2',
      message: `the supplier no longer lists ${ids(gone).join(', ')} (split at its payment?); each order looks its payment up`,
    });
  }
  return { done: false };
}

// ---- each order told its outcome ------------------------------------------------------------

/**
 * Signals an order its outcome, paced: a cancel's answer, every outcome of a run from before
 * Patch.OutcomesByActivity, and what a failed tell activity did not reach. The coordinator does
 * not continue as new before it ends.
 */
async function tell(c: CheckoutState, workflowId: string, outcome: CheckoutOutcome): Promise<void> {
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

/**
 * Tells a release's orders their outcomes: where this run does so by activity, one call per
 * `outcomesInFlight` orders (the activity signals them `TELL_CONCURRENCY` at once); else, or for
 * what a call that failed every attempt did not reach, one signal each (`tell`).
 */
function tellAll(c: CheckoutState, told: readonly OutcomeTold[]): Promise<unknown> {
  // Not async: a run that signals per order awaits exactly what it always did.
  if (!c.outcomesByActivity) return Promise.all(told.map((t) => tell(c, t.workflowId, t.outcome)));
  const per = Math.max(1, checkoutBudgets(c.settings).outcomesInFlight);
  const calls: OutcomeTold[][] = [];
  for (let i = 0; i < told.length; i += per) calls.push(told.slice(i, i + per));
  return Promise.all(calls.map((part) => tellByActivity(c, part)));
}

/** One call of the tell activity; the coordinator does not continue as new before it ends. */
async function tellByActivity(c: CheckoutState, told: OutcomeTold[]): Promise<void> {
  // Owed, not in flight: `outcomesInFlight` paces signals, and this call's fallback is signals.
  c.tellOwed();
  try {
    const { notFound } = await outcomeTelling()(c.tellCall(workflowInfo().runId), told);
    // Orders terminated by hand: nobody is left to tell.
    for (const id of notFound) log.warn(`checkout: could not tell ${id}: not found`);
  } catch (err) {
    const reached = reachedBy(err);
    const rest = told.filter((t) => !reached.includes(t.workflowId));
    log.warn(
      `checkout: telling ${told.length} order(s) by activity failed (${String(err instanceof ActivityFailure ? (err.cause ?? err) : err)}); ${rest.length} told by signal`,
    );
    await Promise.all(rest.map((t) => tell(c, t.workflowId, t.outcome)));
  } finally {
    c.tellSettled();
  }
}

/** The orders a failed tell activity's last attempt reached (its failure's details). */
function reachedBy(err: unknown): string[] {
  const cause = err instanceof ActivityFailure ? err.cause : undefined;
  if (!(cause instanceof ApplicationFailure) || cause.type !== TELL_INCOMPLETE) return [];
  const details = cause.details?.[0] as { reached?: unknown } | undefined;
  return Array.isArray(details?.reached)
    ? details.reached.filter((r) => typeof r === 'string')
    : [];
}

/** The other orders of the batch's shipment, for outcomes that hand a confirmed shipment back. */
function siblingsOf(batch: BatchView, order: ReadyOrder): string[] {
  return batch.orders.filter((o) => o !== order).map((o) => o.workflowId);
}

async function release(
  c: CheckoutState,
  batch: BatchView,
  orders: readonly ReadyOrder[],
  outcome: CheckoutOutcome,
): Promise<void> {
  const workflowIds = orders.map((o) => o.workflowId);
  c.released(batch, workflowIds, outcome);
  await tellAll(
    c,
    orders.map((o) => ({ workflowId: o.workflowId, outcome })),
  );
  c.told(workflowIds);
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
  await tellAll(
    c,
    orders.map((o, i) => ({ workflowId: o.workflowId, outcome: outcomes[i]! })),
  );
  c.told(workflowIds);
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
