/**
 * Every workflow the orders worker runs (its `workflowsPath`). A run that started before a change
 * of its code keeps the code it started with: here a run of an order, a dispute or a checkout
 * coordinator is sent to its frozen copy (src/frozen, docs/changing-workflows.md), decided once at
 * its start. The areas never import the frozen copies.
 */

import { accountCheckout as currentCheckout, type CheckoutInput } from './checkout/coordinator.js';
import type { DisputeInput, DisputeStatus } from './dispute/contract.js';
import type { DisputeCarry } from './dispute/disputeCase.js';
import { disputeOrder as currentDispute } from './dispute/disputeOrder.js';
import { Patch } from './durable/versions.js';
import { accountCheckoutV1, type CheckoutInputV1 } from './frozen/v1/checkout/coordinator.js';
import { disputeOrderV1 } from './frozen/v1/disputeOrder.js';
import { fulfillOrderV1 } from './frozen/v1/fulfillOrder.js';
import { disputeOrderV2 } from './frozen/v2/disputeOrder.js';
import type { OrderStatus } from './order/contract.js';
import { fulfillOrder as currentOrder } from './order/fulfillOrder.js';
import type { OrderInput } from './order/orderInput.js';
import { has } from './durable/patches.js';

export { trackingSweep } from './tracking/trackingSweep.js';
export { trackingSweeper } from './tracking/trackingSweeper.js';
export { webhookInbox } from './inbox/webhookInbox.js';
export { catalogueEvents } from './inbox/catalogueEvents.js';
export { supplierSession } from './session/supplierSession.js';
export { storeOrderSweep } from './store/sweep/storeOrderSweep.js';

export async function fulfillOrder(input: OrderInput): Promise<OrderStatus> {
  if (!has(Patch.ReconcilingSteps)) return fulfillOrderV1(input);
  return currentOrder(input);
}

export async function disputeOrder(
  input: DisputeInput,
  carried?: DisputeCarry,
): Promise<DisputeStatus> {
  // A continued run is new: it runs the current code.
  if (carried === undefined) {
    if (!has(Patch.ReconcilingSteps)) return disputeOrderV1(input);
    if (!has(Patch.DisputeAdopt)) return disputeOrderV2(input);
  }
  return currentDispute(input, carried);
}

export async function accountCheckout(input: CheckoutInput = {}): Promise<void> {
  // A run from before the coordinator's change keeps its commands until it next continues as new;
  // such a run only ever held the v1 shape (input from before the patch).
  if (!has(Patch.CheckoutCoordinator)) return accountCheckoutV1(input as CheckoutInputV1);
  return currentCheckout(input);
}
