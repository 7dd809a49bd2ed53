/**
 * The margin guard of a checkout batch (docs/margin-guard.md): after addCart, before the batch
 * confirms its shipment (a confirmed order cannot leave it), the orders that carry a margin rule
 * are read in ONE getOrderDetailBatch call (addCart and addCartConfirm answer no amounts), and
 * those whose rule fails leave the batch to go on alone from the cart, with the amounts read:
 * their own guard (order/marginGuard.ts) tries another logistics line, else waits for approval.
 * The rest are confirmed and paid as before. A batch without ruled orders makes no call more.
 */

import type { Activities } from '../durable/activityProxies.js';
import type { StepHost } from '../durable/stepHost.js';
import { supplierStep } from '../durable/supplierStep.js';
import { Patch } from '../durable/versions.js';
import { checkMargin, checkText, landedCost, type SupplierAmounts } from '../terms/margin.js';
import { observeMargin } from '../durable/marginGauge.js';
import type { CheckoutOutcome, ReadyOrder } from './contract.js';
import { has } from '../durable/patches.js';

/** An order of the batch that leaves it, and what it is told. */
export interface MarginLeaver {
  order: ReadyOrder;
  outcome: CheckoutOutcome;
}

/** The batch's ruled orders whose rule fails in the cart; none when no order has a rule. */
export async function marginLeavers(
  host: StepHost,
  acts: Activities,
  orders: readonly ReadyOrder[],
): Promise<MarginLeaver[]> {
  const ruled = orders.filter((o) => o.margin !== undefined);
  if (ruled.length === 0 || !has(Patch.MarginGuard)) return [];
  const read = await supplierStep(host, {
    name: 'getOrderDetailBatch',
    send: () => acts.batch.getOrderDetailBatch(ruled.map((o) => o.svcOrderId)),
    expected: () => true,
  });
  if (!read.ok) {
    // Unread, the ruled orders check their rule themselves, alone.
    const why = `its batch could not read its amounts for its margin rule (${read.failure.details.message})`;
    return ruled.map((order) => ({ order, outcome: alone(why) }));
  }
  return ruled.flatMap((order) => {
    const seen = read.value.find(
      (s) => s.svcOrderId === order.svcOrderId || s.svcOrderCode === order.svcOrderId,
    );
    const cost = landedCost(seen);
    // Not shown: the batch pays it as before (the supplier's lag, not a price).
    if (seen === undefined || cost === undefined) return [];
    const check = checkMargin(order.margin!, cost);
    observeMargin(check, 'batch');
    if (check.holds) return [];
    const amounts = {
      ...(seen.orderAmount !== undefined && { orderAmount: seen.orderAmount }),
      ...(seen.productAmount !== undefined && { productAmount: seen.productAmount }),
      ...(seen.postageAmount !== undefined && { postageAmount: seen.postageAmount }),
    };
    return [
      { order, outcome: alone(`its margin rule fails in the cart: ${checkText(check)}`, amounts) },
    ];
  });
}

function alone(why: string, cartAmounts?: SupplierAmounts): CheckoutOutcome {
  return {
    kind: 'alone',
    why,
    progress: { inCart: true, ...(cartAmounts !== undefined && { cartAmounts }) },
  };
}
