/** Every workflow the orders worker runs (its `workflowsPath`). */
export { fulfillOrder } from './order/fulfillOrder.js';
export { trackingSweep } from './tracking/trackingSweep.js';
export { trackingSweeper } from './tracking/trackingSweeper.js';
export { webhookInbox } from './inbox/webhookInbox.js';
export { catalogueEvents } from './inbox/catalogueEvents.js';
export { disputeOrder } from './dispute/disputeOrder.js';
export { accountCheckout } from './checkout/coordinator.js';
export { supplierSession } from './session/supplierSession.js';
export { storeOrderSweep } from './store/sweep/storeOrderSweep.js';
