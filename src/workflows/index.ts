/** Every workflow the orders worker runs (its `workflowsPath`). */
export { fulfillOrder } from './fulfillOrder.js';
export { trackingSweep } from './trackingSweep.js';
