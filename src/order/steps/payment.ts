/**
 * An order paying its parent order alone: approval first (the store's payment setting), then the
 * shipment payment (durable/shipmentPayment.ts) until paid — a short balance waits in
 * AWAITING_FUNDS until a top-up, a resume, or a periodic balance check shows enough. A payment
 * in doubt is settled by the supplier's view of the order (or its own messages: a SHIPPED webhook
 * proves the payment).
 */

import { Stage } from '../contract.js';
import { Patch } from '../../durable/versions.js';
import type { FailureInfo } from '../../supplier/failureDetails.js';
import { OrderStatus, reachedStatus } from '../../supplier/api/constants.js';
import type { Activities } from '../../durable/activityProxies.js';
import type { Order } from '../order.js';
import { generateParentOrder, type ParentOrder } from './checkout.js';
import { orderReached, PAID_STATUS, splitChildren } from './lookup.js';
import { supplierStep, type Seen } from '../../durable/supplierStep.js';
import { PAYMENT_STEP, sendPayment, type ShipmentToPay } from '../../durable/shipmentPayment.js';
import { guardAtPayment } from '../marginGuard.js';
import { has } from '../../durable/patches.js';

/** How often an order in AWAITING_FUNDS asks for the balance on its own. */
const BALANCE_CHECK_INTERVAL = '30 minutes';

export interface PayOptions {
  /** How the order waits when the balance is short (default: its own periodic balance check). */
  awaitFunds?: typeof awaitFunds;
  /** Whether the order was paid meanwhile by another order of its shipment (checked before paying). */
  paidElsewhere?: () => boolean;
}

export async function pay(
  o: Order,
  acts: Activities,
  first: ParentOrder,
  options: PayOptions = {},
): Promise<void> {
  let parent = first;
  if (!o.money.approved) await approval(o, parent.amount);
  await guardAtPayment(o, parent.landedCost);
  const shipment: ShipmentToPay = {
    parent: () => parent,
    renew: async () => {
      const before = parent.payId;
      parent = await generateParentOrder(o, acts);
      if (parent.payId !== before)
        o.view.note(`payId ${before} expired unpaid; paying ${parent.payId}`);
    },
    // The supplier may not say when a payId lapses: proven unpaid, it is generated again.
    renewAfterDoubt: 'always',
    paidAtSupplier: () => paidAtSupplier(o, acts),
    sending: () => {
      o.money.sending();
    },
  };
  for (;;) {
    o.waits.checkCancel();
    if (options.paidElsewhere?.() === true) return;
    const decision = await sendPayment(o.waits, acts, shipment);
    if (decision.next === 'paid') {
      o.money.made(decision.note);
      return;
    }
    o.money.refused();
    await (options.awaitFunds ?? awaitFunds)(o, acts, parent.amount, decision.refusal);
  }
}

/**
 * Paid: the supplier shows the order UNSHIPPED (PENDING or PROCESSING) or later, or told us so;
 * or, split at its payment, shows the orders it became paid. An order the supplier no longer
 * lists while orders of its number exist is never read as unpaid: unless one of them shows
 * paid, a person looks.
 */
async function paidAtSupplier(o: Order, acts: Activities): Promise<Seen<string | undefined>> {
  for (;;) {
    const seen = await orderReached(o, acts, OrderStatus.Unshipped);
    if (seen.done) {
      return { done: true, value: undefined, ...(seen.note !== undefined && { note: seen.note }) };
    }
    if (!has(Patch.SplitPayment)) return { done: false };
    const children = await splitChildren(o, acts);
    if (children === undefined) return { done: false };
    const parent = o.view.status.svcOrderId!;
    const codes = children.map((c) => c.svcOrderId);
    const paid = children.filter((c) => reachedStatus(c.orderStatus, PAID_STATUS));
    if (paid.length > 0) {
      // The order follows its children from here, looked up as any split is.
      o.parcels.claimed({ parentCode: parent, codes });
      return {
        done: true,
        value: undefined,
        note: `the supplier split ${parent} into ${codes.join(', ')}, shown ${paid[0]!.orderStatus}`,
      };
    }
    await o.waits.needsAttention(
      {
        step: `${PAYMENT_STEP} look-up`,
        message: `the supplier no longer lists ${parent}; orders ${codes.join(', ')} of its number show no payment`,
      },
      `check at the supplier whether ${parent} was paid before it was split; resume to look again, or cancel`,
    );
  }
}

/** The payment policy: pay at once, up to an amount, or after approvePayment. */
export async function approval(o: Order, amount: number | undefined): Promise<void> {
  const policy = o.current.input.fulfillment.payment;
  const needed =
    policy.policy === 'approval' ||
    (policy.policy === 'upTo' && (amount === undefined || amount > policy.maxAmount));
  if (!needed) {
    o.money.approvalNotNeeded();
    return;
  }
  o.money.approvalAsked();
  const why =
    policy.policy === 'approval'
      ? 'approvePayment (the payment policy asks for approval)'
      : `approvePayment (${amount ?? 'unknown'} USD is above the automatic limit of ${policy.maxAmount} USD)`;
  for (;;) {
    const action = await o.waits.at(Stage.AWAITING_APPROVAL, why, ['approvePayment']);
    if (!action) continue;
    o.money.approvalGiven();
    o.actions.answer(action, 'payment approved');
    return;
  }
}

/** The order's own wait for funds: a top-up, resume, or its own periodic balance check. */
export async function awaitFunds(
  o: Order,
  acts: Activities,
  amount: number | undefined,
  refusal: FailureInfo,
): Promise<void> {
  o.supplier.awaitTopUp();
  o.view.enter(Stage.AWAITING_FUNDS);
  o.view.failed(refusal);
  // Set by a makeup (top-up) message; read through a function, as a signal handler changes it.
  const toppedUp = () => o.supplier.news.toppedUp === true;
  for (;;) {
    const action = await o.waits.at(
      Stage.AWAITING_FUNDS,
      `a balance top-up of at least ${amount ?? 'the order amount'} USD (makeup payment), resume, or cancel`,
      ['resume'],
      // Without a known amount a balance check cannot tell enough from not enough.
      amount === undefined
        ? { until: toppedUp }
        : { until: toppedUp, timeout: BALANCE_CHECK_INTERVAL },
    );
    if (action) {
      o.actions.answer(action, 'retrying payment');
      return;
    }
    if (toppedUp()) {
      o.view.note('balance topped up');
      return;
    }
    if (amount === undefined) continue;
    const balance = await supplierStep(o.waits, {
      name: 'getBalance',
      send: () => acts.supplier.getBalance(),
      // The next check or a top-up will tell.
      expected: () => true,
    });
    if (balance.ok && balance.value >= amount) {
      o.view.waitEnded('the balance covers the payment');
      return;
    }
  }
}
