/**
 * The margin guard of an order paying alone (docs/margin-guard.md): its rule is checked in the
 * cart, before the supplier confirms it (then another logistics line may still rescue it), and
 * again against the parent order's amount just before the payment leaves. A rule that fails
 * waits in AWAITING_APPROVAL with the numbers as its reason: approvePayment pays at that cost,
 * cancel ends the order. Orders without a rule, or started before Patch.MarginGuard, are not
 * checked and issue no command more.
 */
import { metricMeter } from '@temporalio/workflow';
import { Stage } from './contract.js';
import type { Activities } from '../durable/activityProxies.js';
import { workflowAccount } from '../durable/account.js';
import { supplierStep } from '../durable/supplierStep.js';
import { Patch } from '../durable/versions.js';
import { observeMargin } from '../durable/marginGauge.js';
import { counterOf, METRICS } from '../telemetry/metrics.js';
import {
  checkMargin,
  landedCost,
  rescueByLogistics,
  saleOf,
  type MarginCheck,
  type MarginMoment,
  type MarginTerms,
  type SupplierAmounts,
} from '../terms/margin.js';
import type { Order } from './order.js';
import { has } from '../durable/patches.js';

const decided = new WeakMap<Order, boolean>();

/** Whether the order's rule is checked: it has one, on the guard's code (decided once). */
export function marginGuarded(o: Order): boolean {
  if (o.current.input.fulfillment.margin === undefined) return false;
  let on = decided.get(o);
  if (on === undefined) {
    on = has(Patch.MarginGuard);
    decided.set(o, on);
  }
  return on;
}

/** The order's rule, sale and cost at create (a guarded order has a rule). */
export function marginTerms(o: Order): MarginTerms {
  const sale = saleOf(o.current.input.order.products);
  const costAtCreate = landedCost(o.view.status.amounts);
  return {
    rule: o.current.input.fulfillment.margin!,
    ...(sale !== undefined && { sale }),
    ...(costAtCreate !== undefined && { costAtCreate }),
  };
}

/**
 * In the cart, before addCartConfirm: the rule against the supplier's amounts now (those its batch
 * read, or one order look-up); failing, a cheaper logistics line that keeps it, else approval.
 */
export async function guardAtCart(
  o: Order,
  acts: Activities,
  read?: SupplierAmounts,
): Promise<void> {
  if (!marginGuarded(o)) return;
  const cost = landedCost(read ?? (await amountsNow(o, acts)));
  if (cost === undefined) {
    o.view.note('margin rule: the supplier shows no amounts in the cart; checked before paying');
    return;
  }
  const check = checkMargin(marginTerms(o), cost);
  if (check.holds) {
    observeMargin(check, 'cart');
    o.margin.checked(check, 'cart');
    return;
  }
  if (await rescuedByLogistics(o, acts, check)) return;
  observeMargin(check, 'cart');
  await holdForApproval(o, check, 'cart');
}

/**
 * Just before the payment leaves: the rule against the parent order's amount (the answer the
 * order has, no call). Not for a shipment shared with other orders: its amount is theirs too.
 */
export async function guardAtPayment(o: Order, amount: number | undefined): Promise<void> {
  if (!marginGuarded(o) || amount === undefined || o.money.shipmentRefusal !== undefined) return;
  const check = checkMargin(marginTerms(o), amount);
  if (check.holds || o.margin.approvedFor(amount)) {
    if (check.holds) observeMargin(check, 'payment');
    o.margin.checked(check, 'payment');
    return;
  }
  observeMargin(check, 'payment');
  await holdForApproval(o, check, 'payment');
}

/** The order's amounts as the supplier shows them now; undefined when it could not say. */
async function amountsNow(o: Order, acts: Activities): Promise<SupplierAmounts | undefined> {
  const key = o.view.status.svcOrderId;
  if (key === undefined) return undefined;
  const seen = await supplierStep(o.waits, {
    name: 'getOrderDetailBatch',
    send: () => acts.batch.getOrderDetailBatch([key]),
    // A read: the check before paying covers what this one could not see.
    expected: () => true,
  });
  if (!seen.ok) return undefined;
  return seen.value.find((s) => s.svcOrderId === key || s.svcOrderCode === key);
}

/** The cheapest other line that keeps the rule, no later in delivery, set at the supplier. */
async function rescuedByLogistics(
  o: Order,
  acts: Activities,
  failed: MarginCheck,
): Promise<boolean> {
  const orderCode = o.view.status.svcOrderId;
  const from = o.view.status.logisticName;
  if (orderCode === undefined || from === undefined) return false;
  const offers = await supplierStep(o.waits, {
    name: 'getOrderLogisticsInfo',
    send: () => acts.supplier.getOrderLogisticsInfo(orderCode),
    expected: () => true,
  });
  if (!offers.ok) return false;
  const rescue = rescueByLogistics(failed, from, offers.value);
  if (rescue === undefined) {
    o.view.note('margin rule: no other logistics line keeps it without a later delivery');
    return false;
  }
  // updateLogistics sets a value: sending it again is harmless.
  const changed = await supplierStep(o.waits, {
    name: 'updateLogistics',
    send: () =>
      acts.supplier.updateLogistics({
        orderCode,
        optionId: rescue.offer.id,
        logisticsName: rescue.offer.logisticsName,
      }),
    expected: () => true,
  });
  if (!changed.ok || changed.value.intercepted) {
    o.view.note(
      `margin rule: the supplier did not change the logistics to ${rescue.offer.logisticsName}`,
    );
    return false;
  }
  o.margin.rescued(rescue, from);
  observeMargin(rescue.check, 'cart');
  counterOf(metricMeter, METRICS.marginSavedCents).add(Math.round(rescue.savedUsd * 100), {
    account: workflowAccount(),
  });
  return true;
}

/** AWAITING_APPROVAL with the numbers until approvePayment (pay at this cost) or cancel. */
async function holdForApproval(o: Order, check: MarginCheck, at: MarginMoment): Promise<void> {
  o.margin.held(check, at);
  for (;;) {
    const action = await o.waits.at(
      Stage.AWAITING_APPROVAL,
      `approvePayment to pay at a landed cost of ${check.costNow.toFixed(2)} USD although the margin rule fails, or cancel`,
      ['approvePayment'],
    );
    if (!action) continue;
    o.margin.approved(check.costNow);
    o.actions.answer(
      action,
      `payment approved at a landed cost of ${check.costNow.toFixed(2)} USD`,
    );
    return;
  }
}
