/**
 * Flow C: the supplier filed the order as unconnected (its store product is new to it). Connect
 * the variants the input maps, then find the order; otherwise wait for ORDER_CONNNECTED, or a
 * resume after someone connected it.
 */
import { Stage } from '../contract.js';
import type { Activities } from '../../durable/activityProxies.js';
import type { Order } from '../order.js';
import { lookUpOrder } from './lookup.js';
import { supplierCall } from '../../durable/supplierStep.js';

export async function awaitConnection(o: Order, acts: Activities): Promise<void> {
  if (o.input.fulfillment.connections.length > 0) {
    await connectStoreProducts(o, acts);
    if (await adoptConnected(o, acts)) return;
  }
  for (;;) {
    const heard = () => o.news.connected === true && o.news.svcOrderId !== undefined;
    const action = await o.waitAt(
      Stage.AWAITING_CONNECTION,
      'the store product to be connected (ORDER_CONNNECTED), or resume after connecting it',
      ['resume'],
      { until: heard },
    );
    if (heard()) {
      o.created(o.news.svcOrderId!, o.status.amounts, 'store product connected');
      if (action) o.answer(action, 'connected');
      return;
    }
    const connected = await adoptConnected(o, acts);
    if (action) {
      if (connected) o.answer(action, 'connected; continuing');
      else o.answer(action, 'the supplier still files the order as unconnected', false);
    }
    if (connected) return;
  }
}

/** Finds the connected order at the supplier and takes it on. */
async function adoptConnected(o: Order, acts: Activities): Promise<boolean> {
  const { value: found } = await supplierCall(o, {
    name: 'getOrderDetailBatch',
    send: () => lookUpOrder(o, acts),
  });
  if (!found) return false;
  // The unconnected order was priced at 0; the connected one has the supplier's amount.
  o.created(
    found.svcOrderId,
    found.orderAmount === undefined ? o.status.amounts : { orderAmount: found.orderAmount },
    'store product connected',
  );
  return true;
}

/**
 * Connects the store variants the input maps to catalogue variants (createConnection). A lost
 * answer is settled by the order itself: the supplier shows it once its products are connected.
 */
async function connectStoreProducts(o: Order, acts: Activities): Promise<void> {
  const logistics = o.status.logisticName ?? '';
  for (const c of o.input.fulfillment.connections) {
    await supplierCall(o, {
      name: 'createConnection',
      send: () => acts.supplierOnce.createConnection({ ...c, logistics }),
      lookUp: async () =>
        (await lookUpOrder(o, acts)) ? { done: true, value: undefined } : { done: false },
    });
    o.note(`connected store variant ${c.storeVariantId} to ${c.svcVariantId}`);
  }
}
