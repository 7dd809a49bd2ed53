/**
 * Trust, then verify (docs/architecture.md §10 "Supplier news"): the webhook's key is the
 * account's openId, which some pushes carry in their body, so anyone who saw one can sign. A
 * correctly signed push that would end or re-identify an order, or a push sent again, changes
 * nothing unless the supplier's own order query shows it; real news still moves the order once
 * the supplier shows it. Real dev server, real sandbox, real gateway. A forged SHIPPED for an
 * order whose payment answer was lost: forgedPayment.slow.test.ts.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { beforeAll, describe, expect, it } from 'vitest';

import { Stage, type OrderStatus } from '../../src/order/contract.js';
import { reachStage, startOrder, useOrderHarness, validOrder } from '../support/orders.js';
import { accountStats } from '../support/sandbox.js';
import { eventually } from '../support/eventually.js';
import { connectAtSupplier, storeFlowOrder, usOrder } from '../supplier/orderHelpers.js';
import {
  hmac,
  messageId,
  orderMessage,
  push,
  pushSigned,
  useTestGateway,
} from '../gateway/support.js';
import { actingCalls, newsSignals, notedOrActed } from './support.js';

const h = useOrderHarness('sec-news', 10_000);
const gateway = useTestGateway(h);
/** The supplier's view is believed once it had this long to catch up (look-ups over 2 s). */
const LAG_SECONDS = 2;

describe('an order following its parcel (AWAITING_SHIPMENT)', () => {
  let handle: WorkflowHandle;
  let shipping: OrderStatus;

  beforeAll(async () => {
    const input = validOrder({
      ...usOrder(),
      fulfillment: { flow: 'B', supplierLagSeconds: LAG_SECONDS },
    });
    handle = await startOrder(h, input);
    shipping = await reachStage(handle, Stage.AWAITING_SHIPMENT);
  });

  it('a forged CANCELLED is looked up and not acted on: the order still follows its parcel, nothing sent', async () => {
    const { openId } = h.account;
    const before = await accountStats(openId);
    const answer = await pushSigned(
      gateway,
      openId,
      orderMessage(messageId('forged-cancel'), {
        orderNumber: shipping.orderNumber,
        svcOrderId: shipping.svcOrderId,
        orderStatus: 'CANCELLED',
      }),
    );
    expect(answer).toMatchObject({ status: 200, body: { outcome: 'delivered' } });

    const after = await notedOrActed(
      handle,
      /a webhook said CANCELLED; not acted on: the supplier does not show it/,
      (s) => s.stage === Stage.CANCELLED,
    );
    expect(after.stage).toBe(Stage.AWAITING_SHIPMENT);
    expect(actingCalls(before, await accountStats(openId))).toEqual({});
  });

  it('a forged SHIPPED with a tracking number and link is looked up: no SHIPPED, no tracking shown', async () => {
    const answer = await pushSigned(
      gateway,
      h.account.openId,
      orderMessage(messageId('forged-shipped'), {
        orderNumber: shipping.orderNumber,
        svcOrderId: shipping.svcOrderId,
        orderStatus: 'SHIPPED',
        trackNumber: 'FORGED-TRK-1',
        trackingUrl: 'https://phish.example.com/track',
      }),
    );
    expect(answer).toMatchObject({ status: 200, body: { outcome: 'delivered' } });

    const after = await notedOrActed(
      handle,
      /a webhook said SHIPPED with tracking FORGED-TRK-1; not acted on: the supplier does not show it/,
      (s) => s.stage === Stage.SHIPPED,
    );
    expect(after.stage).toBe(Stage.AWAITING_SHIPMENT);
    expect(after.trackNumber).toBeUndefined();
    expect(after.trackingUrl).toBeUndefined();
    expect(after.timeline.map((t) => t.stage)).not.toContain(Stage.SHIPPED);
  });

  it('a replayed push (the same messageId again) is answered as before and reaches no workflow again', async () => {
    const { openId } = h.account;
    const body = JSON.stringify(
      orderMessage(messageId('replayed'), {
        orderNumber: shipping.orderNumber,
        trackNumber: 'TRK-REPLAY-1',
      }),
    );
    const told = await newsSignals(handle);
    const first = await push(gateway, body, hmac(openId, body));
    expect(first).toMatchObject({ status: 200, body: { outcome: 'delivered' } });
    await eventually(
      'the push in the history',
      () => newsSignals(handle),
      (n) => n > told,
    );

    const again = await push(gateway, body, hmac(openId, body));
    expect(again).toEqual(first);
    // A later push: once it shows in the history, a signal of the replay would be there too.
    await pushSigned(
      gateway,
      openId,
      orderMessage(messageId('marker'), {
        orderNumber: shipping.orderNumber,
        trackingUrl: 'https://track.example.com/after-replay',
      }),
    );
    await eventually(
      'the later push',
      () => newsSignals(handle),
      (n) => n > told + 1,
    );
    expect(await newsSignals(handle)).toBe(told + 2);
  });
});

/** A store-flow order whose store product no one connected: the supplier files it unconnected. */
function unconnectedOrder() {
  const { order, connection } = storeFlowOrder('sec');
  const input = validOrder({
    ...order,
    fulfillment: { flow: 'C', then: 'B', supplierLagSeconds: LAG_SECONDS },
  });
  return { input, connection };
}

const connected = (orderNumber: string, svcOrderId: string) =>
  orderMessage(
    messageId('connected'),
    { orderNumber, svcOrderId, orderStatus: 'CREATED' },
    'ORDER_CONNNECTED',
  );

describe('ORDER_CONNNECTED', () => {
  it('forged, while the supplier still files the order unconnected: no svc order id adopted, no cart, still AWAITING_CONNECTION', async () => {
    const { openId } = h.account;
    const { input } = unconnectedOrder();
    const handle = await startOrder(h, input);
    await reachStage(handle, Stage.AWAITING_CONNECTION);
    const before = await accountStats(openId);

    const answer = await pushSigned(
      gateway,
      openId,
      connected(input.order.orderNumber, 'FORGED-SVC-1'),
    );
    expect(answer).toMatchObject({ status: 200, body: { outcome: 'delivered' } });

    const noted = await notedOrActed(
      handle,
      /a webhook said the order is connected; not acted on/,
      (s) => s.svcOrderId !== undefined,
    );
    expect(noted.svcOrderId).toBeUndefined();
    const after = await reachStage(handle, Stage.AWAITING_CONNECTION);
    expect(after.svcOrderId).toBeUndefined();
    expect(actingCalls(before, await accountStats(openId))).toEqual({});
  });

  it("real: once the supplier connected the order, the push is confirmed and the order goes on with the supplier's svc order id, not the push's", async () => {
    const { input, connection } = unconnectedOrder();
    const handle = await startOrder(h, input);
    await reachStage(handle, Stage.AWAITING_CONNECTION);
    // The store product connected at the supplier, as a person would in its console.
    await connectAtSupplier(h.account.client, connection());
    const [real] = await h.account.client.api.getOrderDetailBatch({
      orderIds: [input.order.orderNumber],
    });
    const svcOrderId = real?.svcOrderId ?? undefined;
    expect(svcOrderId).toBeDefined();

    // The push names another id; the supplier's answer is the one taken.
    const answer = await pushSigned(
      gateway,
      h.account.openId,
      connected(input.order.orderNumber, 'NOT-THE-SUPPLIERS-ID'),
    );
    expect(answer).toMatchObject({ status: 200, body: { outcome: 'delivered' } });
    const shipping = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    expect(shipping.svcOrderId).toBe(svcOrderId);
  });
});
