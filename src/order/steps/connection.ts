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
import { Patch } from '../../durable/versions.js';
import type { OrderSnapshot } from '../lookupActivities.js';
import { supplierConfirms } from './confirmNews.js';
import { has } from '../../durable/patches.js';

export async function awaitConnection(o: Order, acts: Activities): Promise<void> {
  if (o.current.input.fulfillment.connections.length > 0) {
    await connectStoreProducts(o, acts);
    if (await adoptConnected(o, acts)) return;
  }
  for (;;) {
    const heard = () =>
      o.supplier.news.connected === true && o.supplier.news.svcOrderId !== undefined;
    const action = await o.waits.at(
      Stage.AWAITING_CONNECTION,
      'the store product to be connected (ORDER_CONNNECTED), or resume after connecting it',
      ['resume'],
      { until: heard },
    );
    const pushed = heard();
    if (pushed && !has(Patch.PushesConfirmed)) {
      o.created(o.supplier.news.svcOrderId!, o.view.status.amounts, 'store product connected');
      if (action) o.actions.answer(action, 'connected');
      return;
    }
    // A push names an svc order id; the order takes the one the supplier shows for it.
    const connected = pushed ? await confirmConnected(o, acts) : await adoptConnected(o, acts);
    if (action) {
      if (connected) o.actions.answer(action, 'connected; continuing');
      else o.actions.answer(action, 'the supplier still files the order as unconnected', false);
    }
    if (connected) return;
  }
}

/** Finds the connected order at the supplier and takes it on. */
async function adoptConnected(o: Order, acts: Activities): Promise<boolean> {
  const { value: found } = await supplierCall(o.waits, {
    name: 'getOrderDetailBatch',
    send: () => lookUpOrder(o, acts),
  });
  if (!found) return false;
  adopt(o, found);
  return true;
}

/**
 * ORDER_CONNNECTED was heard: the order is looked up by its number (again while the supplier's
 * view may trail) and takes the supplier's svc order id, never the push's.
 */
async function confirmConnected(o: Order, acts: Activities): Promise<boolean> {
  const answer = await supplierConfirms(o.waits, acts, {
    claim: 'the order is connected',
    ids: [o.view.status.orderNumber],
    confirms: (shown) => shown.find((s) => s.orderNumber === o.view.status.orderNumber),
  });
  if (!answer.confirmed) {
    o.supplier.pushNotConfirmed('the order is connected', answer.reason, undefined);
    return false;
  }
  adopt(o, answer.value);
  return true;
}

function adopt(o: Order, found: OrderSnapshot): void {
  // The unconnected order was priced at 0; the connected one has the supplier's amount.
  o.created(
    found.svcOrderId,
    found.orderAmount === undefined ? o.view.status.amounts : { orderAmount: found.orderAmount },
    'store product connected',
  );
}

/**
 * Connects the store variants the input maps to catalogue variants (createConnection). A lost
 * answer is settled by the order itself: the supplier shows it once its products are connected.
 */
async function connectStoreProducts(o: Order, acts: Activities): Promise<void> {
  const logistics = o.view.status.logisticName ?? '';
  for (const c of o.current.input.fulfillment.connections) {
    await supplierCall(o.waits, {
      name: 'createConnection',
      send: () => acts.supplierOnce.createConnection({ ...c, logistics }),
      lookUp: async () =>
        (await lookUpOrder(o, acts)) ? { done: true, value: undefined } : { done: false },
    });
    o.view.note(`connected store variant ${c.storeVariantId} to ${c.svcVariantId}`);
  }
}
