/**
 * From the order to a payable parent order: createOrderV3 → addCart → addCartConfirm →
 * saveGenerateParentOrder, each through the reconciling supplier step, stopping at INTERCEPTED
 * with the supplier's reasons wherever the supplier intercepts.
 */

import type { CreatedOrder } from '../activities.js';
import { Stage, type AmendInput } from '../contract.js';
import type { Reason, StepOutcome } from '../../supplier/interception.js';
import { amendOrder } from '../orderInput.js';
import type { CreateOrderRequest } from '../../supplier/api/orders.js';
import { OrderStatus, reachedStatus } from '../../supplier/api/constants.js';
import { SupplierCode } from '../../supplier/errors.js';
import type { CheckoutProgress } from '../../checkout/contract.js';
import type { Activities } from '../../durable/activityProxies.js';
import {
  confirmedWithoutShipment,
  isBusiness,
  supplierFailure,
  type SupplierFailure,
} from '../../durable/failures.js';
import type { Order } from '../order.js';
import type { PendingAction } from '../operatorActions.js';
import { CREATE_STEP } from '../currentOrder.js';
import { awaitConnection } from './connection.js';
import { intercepted } from './interception.js';
import { lookUpOrder, orderReached, ownOrder, PAID_STATUS } from './lookup.js';
import type { OrderSnapshot } from '../lookupActivities.js';
import { linesText } from '../parcels.js';
import { Patch } from '../../durable/versions.js';
import { supplierCall, supplierStep } from '../../durable/supplierStep.js';
import { guardAtCart } from '../marginGuard.js';
import { has } from '../../durable/patches.js';

export interface ParentOrder {
  shipmentOrderId: string;
  payId: string;
  amount: number | undefined;
  /** When the supplier stops taking payment for this payId (ISO), if it said. */
  expiresAt: string | undefined;
  /** What the shipment costs to land (USD), from the parent order's answer, if it said. */
  landedCost?: number;
}

/** The parent order to pay; undefined once the supplier shows the order paid (adopted). */
export async function checkout(
  o: Order,
  acts: Activities,
  body: CreateOrderRequest,
): Promise<ParentOrder | undefined> {
  await createOrder(o, acts, body);
  return cartToParentOrder(o, acts);
}

/**
 * addCart → addCartConfirm → saveGenerateParentOrder for this order alone, from where its
 * checkout batch got (nothing, in the cart, confirmed, parent order generated). Undefined: the
 * confirmation's look-up found the order paid (by its batch), and the order took it as paid.
 */
export async function cartToParentOrder(
  o: Order,
  acts: Activities,
  from: CheckoutProgress = {},
): Promise<ParentOrder | undefined> {
  const svcOrderId = o.view.status.svcOrderId!;
  if (from.shipmentOrderId === undefined) {
    if (from.inCart !== true) {
      await cartStep(
        o,
        acts,
        'addCart',
        () => acts.supplierOnce.addCart(svcOrderId),
        async () => {
          const seen = await orderReached(o, acts, OrderStatus.InCart);
          return seen.done ? { ...seen, value: { intercepted: false, reasons: [] } } : seen;
        },
      );
    }
    o.view.enter(Stage.IN_CART);
    // The last moment another logistics line can still keep the margin rule.
    await guardAtCart(o, acts, from.cartAmounts);

    const confirmed = await cartStep<Confirmation>(
      o,
      acts,
      'addCartConfirm',
      () => acts.supplierOnce.addCartConfirm(svcOrderId),
      () => confirmedShipment(o, acts, svcOrderId),
      // Success without a shipment: confirmed (and paid) by its batch, perhaps; looked up.
      (f) => confirmedWithoutShipment(f) && has(Patch.ConfirmLookedUp),
    );
    if (confirmed.paidAs !== undefined) {
      o.money.made(confirmed.paidAs);
      return undefined;
    }
    // The activity refuses a confirmation without a shipment, and the look-up finds one, so it is here.
    o.money.cartConfirmed(confirmed.shipmentOrderId!);
  } else if (o.view.status.shipmentOrderId !== from.shipmentOrderId) {
    o.money.cartConfirmed(from.shipmentOrderId);
  }
  if (from.payId !== undefined) {
    o.view.record({ payId: from.payId });
    return {
      shipmentOrderId: from.shipmentOrderId!,
      payId: from.payId,
      amount: from.amount ?? o.view.status.amounts?.orderAmount,
      expiresAt: from.payExpiresAt,
    };
  }
  return generateParentOrder(o, acts);
}

/**
 * saveGenerateParentOrder over the confirmed shipment. The supplier's order view does not show
 * parent orders; a repeat within the pay window answers the same payId and moves no money, so a
 * lost answer is settled by asking again. Called again when a payId expired unpaid.
 */
export async function generateParentOrder(o: Order, acts: Activities): Promise<ParentOrder> {
  const shipmentOrderId = o.view.status.shipmentOrderId!;
  const parent = await cartStep(o, acts, 'saveGenerateParentOrder', () =>
    acts.supplier.saveGenerateParentOrder(shipmentOrderId),
  );
  // As above: a parent order without a payId stops in the activity.
  o.view.record({ payId: parent.payId! });
  o.view.enter(Stage.AWAITING_PAYMENT);
  return {
    shipmentOrderId,
    payId: parent.payId!,
    amount: parent.amount ?? o.view.status.amounts?.orderAmount,
    expiresAt: parent.payExpiresAt,
    ...(parent.landedCost !== undefined && { landedCost: parent.landedCost }),
  };
}

/**
 * createOrderV3, never twice: a lost answer or 1603003 is settled by finding the order. An order
 * intercepted at its creation may be amended: the supplier's order is deleted, and the amended one
 * created in its place.
 */
export async function createOrder(
  o: Order,
  acts: Activities,
  body: CreateOrderRequest,
): Promise<void> {
  for (;;) {
    const reasons = await createOnce(o, acts, body);
    if (reasons.length === 0) return;
    for (;;) {
      // The supplier files an intercepted order anyway; addCart checks it again after a fix.
      const amend = await intercepted(o, acts, CREATE_STEP, reasons, { amend: true });
      if (amend === undefined) return;
      if (await deleteToAmend(o, acts, amend)) break;
    }
  }
}

/** One create, settled; the interception reasons it met (none for an order waiting to connect). */
async function createOnce(o: Order, acts: Activities, body: CreateOrderRequest): Promise<Reason[]> {
  const storeFlow = o.current.input.fulfillment.flow === 'C';
  const result = await supplierStep<CreatedOrder>(o.waits, {
    name: CREATE_STEP,
    // Read at each attempt: an amend taken while the create stopped changes what is sent.
    send: () => acts.supplierOnce.createOrderV3(o.current.withAmendments(body)),
    lookUp: async () => {
      const found = await createdOrder(o, acts);
      if (!found) return { done: false };
      const adopted: CreatedOrder = {
        svcOrderId: found.svcOrderId,
        amounts: found.orderAmount === undefined ? {} : { orderAmount: found.orderAmount },
        logisticsMiss: false,
        reasons: [],
      };
      return {
        done: true,
        value: adopted,
        note: 'found at the supplier after an unanswered create',
      };
    },
    // A store-flow order waiting for its connection exists but no query shows it.
    doubtful: (f) => !storeFlow && isBusiness(f, SupplierCode.DuplicateOrder),
    expected: (f) => storeFlow && isBusiness(f, SupplierCode.DuplicateOrder),
  });
  if (!result.ok) {
    o.view.record({ atSupplier: true });
    o.view.note('the supplier holds the order, unconnected');
    await awaitConnection(o, acts);
    return [];
  }
  const created = result.value;
  if (created.svcOrderId === undefined) {
    o.view.record({ amounts: created.amounts, atSupplier: true });
    await awaitConnection(o, acts);
  } else {
    o.created(created.svcOrderId, created.amounts, result.note);
  }
  return [
    ...created.reasons,
    ...(created.logisticsMiss
      ? [{ message: 'logisticsMiss: the logistics line does not serve this route' }]
      : []),
  ];
}

/**
 * The order a create whose answer was lost made, as the supplier shows it (by the order number
 * while the order has no code of its own). A number shown under several codes was split by the
 * supplier before the order learned its code: none of them is the order, none is taken for it and
 * nothing is created again. The order stops at NEEDS_ATTENTION naming them until the supplier
 * shows one order of the number again or a person cancels; resume looks again.
 */
async function createdOrder(o: Order, acts: Activities): Promise<OrderSnapshot | undefined> {
  for (;;) {
    const { svcOrderId, orderNumber } = o.view.status;
    const shown = await acts.batch.getOrderDetailBatch([svcOrderId ?? orderNumber]);
    const parts =
      svcOrderId === undefined ? shown.filter((s) => s.orderNumber === orderNumber) : [];
    if (parts.length < 2 || !has(Patch.SplitBeforeCreate)) return ownOrder(o, shown);
    const listed = parts.map(
      (s) => `${s.svcOrderId} (${linesText(s.lines ?? [])}; ${s.orderStatus ?? 'no status'})`,
    );
    await o.waits.needsAttention(
      {
        step: CREATE_STEP,
        message:
          `the supplier shows order ${orderNumber} as ${parts.length} orders, split before ` +
          `dropflow learned its code (the create's answer was lost): ${listed.join(', ')}. ` +
          'None is taken for the order and nothing is created again',
      },
      "pay and follow them in the supplier's console, or cancel them there and cancel this " +
        'order (dropflow pays one supplier order per order); resume looks again',
    );
  }
}

/**
 * An amend of an order intercepted at its creation: deletes the supplier's order (allowed before
 * confirmation), then takes the amendment, so that the next create sends it. A delete whose answer
 * was lost is settled by the supplier's view (the order gone) before it is sent again. Returns
 * false, with the amend answered as refused, when the supplier keeps the order or the changes no
 * longer hold; the order then stays intercepted as it was.
 */
async function deleteToAmend(o: Order, acts: Activities, amend: PendingAction): Promise<boolean> {
  const svcOrderId = o.view.status.svcOrderId!;
  const check = amendOrder(o.current.input, (amend.input as AmendInput | undefined)?.order);
  if (!check.ok) {
    const issues = check.issues.map((i) => `${i.field}: ${i.rule}`).join('; ');
    o.actions.answer(amend, `amend refused: ${issues}`, false);
    return false;
  }
  try {
    const deleted = await supplierStep(o.waits, {
      name: 'deleteOrder',
      send: () => acts.supplierOnce.deleteOrder(svcOrderId),
      lookUp: async () =>
        (await lookUpOrder(o, acts)) === undefined
          ? { done: true, value: undefined, note: 'no longer shown by the supplier' }
          : { done: false },
      expected: () => true,
      // A cancel waits until the amend is answered; the next create honours it.
      cancellable: false,
    });
    if (!deleted.ok) {
      o.actions.answer(
        amend,
        `amend not carried out: the supplier did not delete ${svcOrderId} (${deleted.failure.details.message}); the order stays as it was`,
        false,
      );
      return false;
    }
    o.view.deletedToAmend(svcOrderId);
    // Checked above against the same order: it holds.
    const fields = o.waits.amended(amend) ?? [];
    o.actions.answer(
      amend,
      `amended ${fields.join(', ')}; deleted the intercepted ${svcOrderId} at the supplier, creating the order again`,
    );
    return true;
  } finally {
    if (amend.result === undefined) {
      o.actions.answer(amend, 'amend not carried out: the order stopped on the way', false);
    }
  }
}

/** A confirmation as the order's step takes it: its shipment, or the payment the supplier shows. */
type Confirmation = StepOutcome & { shipmentOrderId?: string; paidAs?: string };

/**
 * The shipment of a confirmation whose answer was lost or named no shipment. The supplier shows
 * the order UNPAID once confirmed; a confirmed order is not confirmed into a second shipment, so
 * the repeat's shipment is the one, once the supplier lists the order in it. An order the
 * supplier shows paid was paid with its shipment (by its batch): nothing to confirm
 * (Patch.ConfirmLookedUp); a repeat that names no shipment then is not the last word either,
 * the view may not show the payment yet.
 */
async function confirmedShipment(
  o: Order,
  acts: Activities,
  svcOrderId: string,
): Promise<{ done: true; value: Confirmation } | { done: false }> {
  const seen = await orderReached(o, acts, OrderStatus.Unpaid);
  if (!seen.done) return { done: false };
  const status = seen.value?.orderStatus ?? o.supplier.news.orderStatus;
  if (reachedStatus(status, PAID_STATUS) && has(Patch.ConfirmLookedUp)) {
    // Paid with its shipment, by its batch or by an order sharing it: the supplier names no
    // shipment here, so the order knows it only if that order tells it.
    const paidAs = `the supplier shows the order ${status}: paid with its shipment, by its checkout batch or an order sharing it`;
    return { done: true, value: { intercepted: false, reasons: [], paidAs } };
  }
  let again: Confirmation;
  try {
    again = await acts.supplierOnce.addCartConfirm(svcOrderId);
  } catch (err) {
    if (confirmedWithoutShipment(supplierFailure(err)) && has(Patch.ConfirmLookedUp)) {
      return { done: false };
    }
    throw err;
  }
  const shipment = again.shipmentOrderId;
  if (shipment === undefined) return { done: false };
  const members = await acts.supplier.ordersOfShipment(shipment);
  return members.includes(svcOrderId) ? { done: true, value: again } : { done: false };
}

/**
 * One cart step: run it through the reconciling step; if the supplier intercepts, stop at
 * INTERCEPTED and run it again after resume or a logistics change.
 */
async function cartStep<T extends StepOutcome>(
  o: Order,
  acts: Activities,
  name: string,
  send: () => Promise<T>,
  lookUp?: () => Promise<{ done: true; value: T } | { done: false }>,
  doubtful?: (f: SupplierFailure) => boolean,
): Promise<T> {
  for (;;) {
    const { value, note } = await supplierCall(o.waits, {
      name,
      send,
      ...(lookUp && { lookUp }),
      ...(doubtful && { doubtful }),
    });
    if (note !== undefined) o.view.note(`${name}: ${note}`);
    if (!value.intercepted) return value;
    await intercepted(o, acts, name, value.reasons);
  }
}
