/**
 * The store intake (store/intake/handOver.ts) on an OrderClient: what the gateway's store webhooks
 * and the workers' order sweeps both hand store orders to. A start whose order number is taken is
 * `existing`, whatever input the first hand-over gave it (store orders never reuse a number).
 */
import { WorkflowNotFoundError } from '@temporalio/client';

import { orderWorkflowId } from '../order/contract.js';
import { storeOrderNumber, storeOrderSignal } from '../store/contract.js';
import type { OrderIntake } from '../store/intake/handOver.js';
import { OrderConflictError, type OrderClient } from './orderClient.js';

export function storeOrderIntake(orders: OrderClient): OrderIntake {
  return {
    async start(document) {
      try {
        return (await orders.submit(document, { reuse: false })).outcome;
      } catch (err) {
        if (err instanceof OrderConflictError) return 'existing';
        throw err;
      }
    },
    async tell(store, storeOrderId, news) {
      const workflowId = orderWorkflowId(storeOrderNumber(store.id, storeOrderId), store.account);
      try {
        await orders.client.workflow.getHandle(workflowId).signal(storeOrderSignal, news);
        return true;
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) return false;
        throw err;
      }
    },
  };
}
