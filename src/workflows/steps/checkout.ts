/**
 * From the order to a payable parent order: createOrderV3 → addCart → addCartConfirm →
 * saveGenerateParentOrder, each through the reconciling supplier step, stopping at INTERCEPTED
 * with the supplier's reasons wherever the supplier intercepts.
 */
import type { CreatedOrder, Reason, StepOutcome } from '../../activities/orders.js';
import { Stage } from '../../client/definitions.js';
import type { CreateOrderRequest } from '../../supplier/api/orders.js';
import { OrderStatus } from '../../supplier/api/constants.js';
import { SupplierCode } from '../../supplier/errors.js';
import type { CheckoutProgress } from '../checkout/messages.js';
import type { Activities } from '../activities.js';
import { isBusiness } from '../failures.js';
import type { Order } from '../order.js';
import { awaitConnection } from './connection.js';
import { intercepted } from './interception.js';
import { lookUpOrder, orderReached } from './lookup.js';
import { supplierCall, supplierStep } from './supplierStep.js';

export interface ParentOrder {
  shipmentOrderId: string;
  payId: string;
  amount: number | undefined;
  /** When the supplier stops taking payment for this payId (ISO), if it said. */
  expiresAt: string | undefined;
}

export async function checkout(
  o: Order,
  acts: Activities,
  body: CreateOrderRequest,
): Promise<ParentOrder> {
  await createOrder(o, acts, body);
  return cartToParentOrder(o, acts);
}

/**
 * addCart → addCartConfirm → saveGenerateParentOrder for this order alone, from where its
 * checkout batch got (nothing, in the cart, confirmed, parent order generated).
 */
export async function cartToParentOrder(
  o: Order,
  acts: Activities,
  from: CheckoutProgress = {},
): Promise<ParentOrder> {
  const svcOrderId = o.status.svcOrderId!;
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
    o.enter(Stage.IN_CART);

    const confirmed = await cartStep(
      o,
      acts,
      'addCartConfirm',
      () => acts.supplierOnce.addCartConfirm(svcOrderId),
      () => confirmedShipment(o, acts, svcOrderId),
    );
    // The activity refuses a confirmation without a shipment (NEEDS_ATTENTION), so it is here.
    o.cartConfirmed(confirmed.shipmentOrderId!);
  } else if (o.status.shipmentOrderId !== from.shipmentOrderId) {
    o.cartConfirmed(from.shipmentOrderId);
  }
  if (from.payId !== undefined) {
    o.parentOrderGenerated(from.payId);
    return {
      shipmentOrderId: from.shipmentOrderId!,
      payId: from.payId,
      amount: from.amount ?? o.status.amounts?.orderAmount,
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
  const shipmentOrderId = o.status.shipmentOrderId!;
  const parent = await cartStep(o, acts, 'saveGenerateParentOrder', () =>
    acts.supplier.saveGenerateParentOrder(shipmentOrderId),
  );
  // As above: a parent order without a payId stops in the activity.
  o.parentOrderGenerated(parent.payId!);
  o.enter(Stage.AWAITING_PAYMENT);
  return {
    shipmentOrderId,
    payId: parent.payId!,
    amount: parent.amount ?? o.status.amounts?.orderAmount,
    expiresAt: parent.payExpiresAt,
  };
}

/** createOrderV3, never twice: a lost answer or 1603003 is settled by finding the order. */
export async function createOrder(
  o: Order,
  acts: Activities,
  body: CreateOrderRequest,
): Promise<void> {
  const storeFlow = o.input.fulfillment.flow === 'C';
  const result = await supplierStep<CreatedOrder>(o, {
    name: 'createOrderV3',
    send: () => acts.supplierOnce.createOrderV3(body),
    lookUp: async () => {
      const found = await lookUpOrder(o, acts);
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
    o.note('the supplier holds the order, unconnected');
    await awaitConnection(o, acts);
    return;
  }
  const created = result.value;
  if (created.svcOrderId === undefined) {
    o.createdUnconnected(created.amounts);
    await awaitConnection(o, acts);
  } else {
    o.created(created.svcOrderId, created.amounts, result.note);
  }
  const reasons = [
    ...created.reasons,
    ...(created.logisticsMiss
      ? [{ message: 'logisticsMiss: the logistics line does not serve this route' }]
      : []),
  ];
  // The supplier files an intercepted order anyway; addCart checks it again after a fix.
  if (reasons.length > 0) await intercepted(o, acts, 'createOrderV3', reasons);
}

/**
 * The shipment of a confirmation whose answer was lost. The supplier shows the order UNPAID once
 * confirmed; a confirmed order is not confirmed into a second shipment, so the repeat's shipment
 * is the one, once the supplier lists the order in it.
 */
async function confirmedShipment(
  o: Order,
  acts: Activities,
  svcOrderId: string,
): Promise<{ done: true; value: StepOutcome & { shipmentOrderId?: string } } | { done: false }> {
  const seen = await orderReached(o, acts, OrderStatus.Unpaid);
  if (!seen.done) return { done: false };
  const again = await acts.supplierOnce.addCartConfirm(svcOrderId);
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
): Promise<T> {
  for (;;) {
    const { value, note } = await supplierCall(o, { name, send, ...(lookUp && { lookUp }) });
    if (note !== undefined) o.note(`${name}: ${note}`);
    if (!value.intercepted) return value;
    await intercepted(o, acts, name, value.reasons);
  }
}

export type { Reason };
