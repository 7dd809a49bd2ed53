/** (stub: being written) */
import type { OrderInput } from '../client/orderInput.js';
import type { OrderStatus } from '../client/definitions.js';

export async function fulfillOrder(input: OrderInput): Promise<OrderStatus> {
  await Promise.resolve();
  return { orderNumber: input.order.orderNumber, flow: input.fulfillment.flow, stage: 'RECEIVED', timeline: [] };
}
