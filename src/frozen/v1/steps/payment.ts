/**
 * Paying the parent order from the balance, never twice: the payment policy (approval), 1604000
 * (AWAITING_FUNDS until a top-up, a resume, or a periodic balance check shows enough), and a lost
 * response answered by looking at the order's status before any new attempt.
 */
import { sleep } from '@temporalio/workflow';
import { Stage } from '../../common/contracts.js';
import { SupplierCode } from '../../common/supplier.js';
import type { Activities } from '../activities.js';
import {
  backoff,
  failureInfo,
  isBusiness,
  isRetryable,
  mayHaveActed,
  supplierFailure,
} from '../failures.js';
import type { FrozenOrderV1 } from '../order.js';
import type { ParentOrder } from './checkout.js';
import { lookUpOrder, MAX_UNANSWERED_IN_A_ROW, reached } from './lookup.js';
import { needsAttention, waitAt } from './wait.js';

/** How often an order in AWAITING_FUNDS asks for the balance on its own. */
const BALANCE_CHECK_INTERVAL = '30 minutes';

export async function pay(o: FrozenOrderV1, acts: Activities, parent: ParentOrder): Promise<void> {
  await approval(o, parent.amount);
  let unsure = 0;
  let busy = 0;
  for (;;) {
    o.checkCancel();
    // From here the order can no longer be cancelled: a payment may happen.
    o.mayHavePaid = true;
    try {
      await acts.supplierOnce.payBalanceV2({
        shipmentOrderId: parent.shipmentOrderId,
        payId: parent.payId,
      });
      break;
    } catch (err) {
      if (mayHaveActed(err)) {
        // The answer was lost or the attempt died: look before paying again.
        if (await isPaid(o, acts)) break;
        if (++unsure <= MAX_UNANSWERED_IN_A_ROW) {
          await sleep(backoff(unsure));
          continue;
        }
      } else {
        // The supplier answered (or the request never left): nothing was paid.
        o.mayHavePaid = false;
        if (isRetryable(err) && ++busy <= MAX_UNANSWERED_IN_A_ROW) {
          await sleep(backoff(busy));
          continue;
        }
        const f = supplierFailure(err);
        if (isBusiness(f, SupplierCode.InsufficientBalance)) {
          o.status.error = failureInfo('payBalanceV2', f!);
          await awaitFunds(o, acts, parent.amount);
          continue;
        }
      }
      unsure = 0;
      busy = 0;
      await needsAttention(o, 'payBalanceV2', err);
      // Someone may have paid in the supplier's console meanwhile.
      if (await isPaid(o, acts)) break;
    }
  }
  o.paid = true;
  o.enter(Stage.PAID);
}

async function isPaid(o: FrozenOrderV1, acts: Activities): Promise<boolean> {
  return reached((await lookUpOrder(o, acts))?.orderStatus, 'UNSHIPPED');
}

/** The payment policy: pay at once, up to an amount, or after approvePayment. */
async function approval(o: FrozenOrderV1, amount: number | undefined): Promise<void> {
  const policy = o.input.fulfillment.payment;
  const needed =
    policy.policy === 'approval' ||
    (policy.policy === 'upTo' && (amount === undefined || amount > policy.maxAmount));
  if (!needed) return;
  o.awaitingApproval = true;
  // Entered again so that NeedsAttention turns true for operators' lists.
  o.enter(Stage.AWAITING_PAYMENT, 'the payment waits for approval');
  const why =
    policy.policy === 'approval'
      ? 'approvePayment (the payment policy asks for approval)'
      : `approvePayment (${amount ?? 'unknown'} USD is above the automatic limit of ${policy.maxAmount} USD)`;
  for (;;) {
    const action = await waitAt(o, Stage.AWAITING_PAYMENT, why, ['approvePayment']);
    if (!action) continue;
    o.awaitingApproval = false;
    o.answer(action, 'payment approved');
    o.note('payment approved');
    return;
  }
}

async function awaitFunds(
  o: FrozenOrderV1,
  acts: Activities,
  amount: number | undefined,
): Promise<void> {
  o.news.toppedUp = false;
  // Set by a makeup (top-up) message; read through a function, as a signal handler changes it.
  const toppedUp = () => o.news.toppedUp === true;
  for (;;) {
    const action = await waitAt(
      o,
      Stage.AWAITING_FUNDS,
      `a balance top-up of at least ${amount ?? 'the order amount'} USD (makeup payment), resume, or cancel`,
      ['resume'],
      // Without a known amount a balance check cannot tell enough from not enough.
      amount === undefined
        ? { until: toppedUp }
        : { until: toppedUp, timeout: BALANCE_CHECK_INTERVAL },
    );
    if (action) {
      o.answer(action, 'retrying payment');
      return;
    }
    if (toppedUp()) {
      o.note('balance topped up');
      return;
    }
    if (amount === undefined) continue;
    try {
      if ((await acts.supplier.getBalance()) >= amount) return;
    } catch {
      // The next check or a top-up will tell.
    }
  }
}
