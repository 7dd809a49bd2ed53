/**
 * The checkout coordinator as it ran before `checkout-coordinator-2026-11` (frozen: runs that
 * started on it replay on it; ../../checkout/coordinator.ts chooses at the start). Once idle, a
 * run that is not replaying continues as new onto the current coordinator, carrying its state.
 *
 * `accountCheckout`: one per supplier account (id `checkout:<account>`), on the account's orders
 * queue. Orders that are created and approved for payment join it; it closes a batch when no
 * order joined for `quietMs`, when the first waited `maxWaitMs`, or at `maxBatch` orders — so a
 * lone order waits a couple of seconds while a backlog, which holds the budget anyway, fills
 * batches — and runs each batch's four supplier calls once (batch.ts). It also watches the
 * balance for every order of the account that waits for funds. It never fails and continues as
 * new between batches.
 */
import {
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { StepHost } from '../../../durable/stepHost.js';
import type { CheckoutSettings } from '../../../terms/checkoutSettings.js';
import { activities, type Activities } from '../../common/activityProxies.js';
import { Patch } from '../../common/patches.js';
import { supplierCall } from '../../common/supplierStep.js';
import { resumePayment, runBatch, tell } from './batch.js';
import {
  checkoutFundsSignal,
  checkoutReadySignal,
  checkoutSettingsSignal,
  checkoutStatusQuery,
  checkoutWithdrawSignal,
  DEFAULT_CHECKOUT_SETTINGS,
} from '../../common/contracts.js';
import { CheckoutState, type CheckoutCarryOver } from './state.js';

/** Batches under way at once: one may wait for a look-up while the next goes on. */
const MAX_BATCHES_IN_FLIGHT = 3;
/** History length after which the coordinator continues as new, once no batch is under way. */
const HISTORY_LIMIT = 5_000;

export interface CheckoutInputV1 {
  settings?: CheckoutSettings;
  /** State carried over from the previous run. */
  carried?: CheckoutCarryOver;
}

export async function accountCheckoutV1(input: CheckoutInputV1 = {}): Promise<void> {
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
    c.ready(order);
  });
  setHandler(checkoutSettingsSignal, (settings) => {
    c.configure(settings);
  });
  setHandler(checkoutFundsSignal, (news) => {
    c.fundsNews(news);
  });
  setHandler(checkoutWithdrawSignal, async ({ workflowId }) => {
    await tell(workflowId, c.withdraw(workflowId));
  });
  setHandler(checkoutStatusQuery, () => c.view());

  for (;;) {
    // Taken first: whatever wakes the loop while it works makes it look again at once.
    const seen = c.wakeVersion;
    const now = new Date().getTime();
    while (c.batchDue(now) && c.batchesInFlight < MAX_BATCHES_IN_FLIGHT) {
      void runBatch(c, acts, c.takeBatch());
    }
    if (c.fundsCheckDue(now)) await checkFunds(c, acts);
    // Asked only when idle: the recorded histories replay it as not patched (no command).
    if (c.idle && (tooLong() || patched(Patch.CheckoutCoordinator))) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof accountCheckoutV1>({ carried: c.carryOver() });
    }
    const wait = c.nextWakeMs(new Date().getTime(), c.batchesInFlight < MAX_BATCHES_IN_FLIGHT);
    if (wait === undefined) await condition(() => c.wakeVersion !== seen);
    else await condition(() => c.wakeVersion !== seen, wait);
  }
}

function tooLong(): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength > HISTORY_LIMIT;
}

/** The balance watcher: one read, and what it covers goes on, oldest first. */
async function checkFunds(c: CheckoutState, acts: Activities): Promise<void> {
  const host = fundsHost();
  let balance: number;
  try {
    balance = (
      await supplierCall(host, { name: 'getBalance', send: () => acts.supplier.getBalance() })
    ).value;
  } catch (err) {
    if (!(err instanceof FundsCheckFailed)) throw err;
    c.fundsCheckFailed();
    return;
  }
  for (const item of c.release(balance)) {
    if (item.kind === 'orders') c.requeue([item.order]);
    else if (item.kind === 'waiter') {
      void tell(item.workflowId, { kind: 'fundsAvailable', balance });
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
