/**
 * `accountCheckout`: one per supplier account (id `checkout:<account>`), on the account's orders
 * queue. Orders that are created and approved for payment join it; it closes a batch when no
 * order joined for `quietMs`, when the first waited `maxWaitMs`, or at `maxBatch` orders — so a
 * lone order waits a couple of seconds while a backlog, which holds the budget anyway, fills
 * batches — and runs each batch's four supplier calls once (batch.ts). It also watches the
 * balance for every order of the account that waits for funds. It never fails.
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
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  metricMeter,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { counterOf, METRICS } from '../telemetry/metrics.js';
import { activities, type Activities } from '../durable/activityProxies.js';
import { supplierCall } from '../durable/supplierStep.js';
import type { StepHost } from '../durable/stepHost.js';
import { followAccountTier, workflowAccount } from '../durable/account.js';
import { resumePayment, runBatch, tell } from './batch.js';
import {
  checkoutFundsSignal,
  checkoutMemberQuery,
  checkoutReadySignal,
  checkoutSettingsSignal,
  checkoutStatusQuery,
  checkoutWithdrawSignal,
} from './contract.js';
import {
  checkoutBudgets,
  DEFAULT_CHECKOUT_SETTINGS,
  type CheckoutSettings,
} from '../terms/checkoutSettings.js';
import { CheckoutState, type CheckoutCarryOver } from './state.js';

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
  );
  const acts = activities();
  setHandler(checkoutReadySignal, (order) => {
    c.signalled();
    c.ready(order);
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
  for (const item of c.release(balance, topUps)) {
    if (item.kind === 'orders') c.requeue([item.order]);
    else if (item.kind === 'waiter') {
      void tell(c, item.workflowId, { kind: 'fundsAvailable', balance });
    } else if (item.kind === 'shipmentWaiters') {
      for (const id of item.workflowIds) void tell(c, id, { kind: 'fundsAvailable', balance });
    } else {
      void resumePayment(c, acts, c.resumeShipment(item.shipment), item.shipment.shipmentOrderId);
    }
  }
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
