/** Every workflow the orders worker runs (its `workflowsPath`). */
export { fulfillOrder } from './fulfillOrder.js';
export { trackingSweep } from './trackingSweep.js';
export { trackingSweeper } from './trackingSweeper.js';
export { webhookInbox } from './webhookInbox.js';
export { catalogueEvents } from './catalogueEvents.js';
export { disputeOrder } from './disputeOrder.js';
export { accountCheckout } from './checkout/coordinator.js';
export { supplierSession } from './supplierSession.js';
