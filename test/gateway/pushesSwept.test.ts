/**
 * Shipping pushes reach their orders through the account's tracking sweeper (docs/architecture.md
 * §16.2): the pushes of a short window go to it as one `ordersPushed` signal, it asks the supplier
 * about those orders at once, and each order is told what the supplier shows, never what a push
 * said. Real order workflows, a real sweeper, the real gateway and sandbox.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Stage, statusQuery } from '../../src/order/contract.js';
import { ensureTrackingSweeper } from '../../src/tracking/sweeperStart.js';
import { sweeperStatusQuery } from '../../src/tracking/contract.js';
import { eventually } from '../support/eventually.js';
import { reachStage, startOrder, useOrderHarness, validOrder } from '../support/orders.js';
import { advance, usOrder } from '../supplier/orderHelpers.js';
import { messageId, orderMessage, pushSigned, useTestGateway } from './support.js';

const h = useOrderHarness('gw-pushes');
const gateway = useTestGateway(h);
let sweeperId = '';

beforeAll(async () => {
  // Sweeps an hour apart: whatever reaches an order here came from a look at its push.
  ({ workflowId: sweeperId } = await ensureTrackingSweeper(h.client, {
    queues: h.queues,
    everySeconds: 3_600,
    account: { id: 'default' },
  }));
});

afterAll(async () => {
  await h.client.workflow
    .getHandle(sweeperId)
    .terminate('test over')
    .catch(() => undefined);
});

const sweeper = () => h.client.workflow.getHandle(sweeperId);

/** Per signal name and per scheduled activity type, how often they appear in a history. */
async function ledger(handle: WorkflowHandle): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const e of (await handle.fetchHistory()).events ?? []) {
    const name =
      e.workflowExecutionSignaledEventAttributes?.signalName ??
      e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (name != null) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

async function waitingOrder(): Promise<{ handle: WorkflowHandle; svcOrderId: string; n: string }> {
  const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B' } });
  const handle = await startOrder(h, input);
  const status = await reachStage(handle, Stage.AWAITING_SHIPMENT);
  return { handle, svcOrderId: status.svcOrderId!, n: input.order.orderNumber };
}

const logistic = (svcOrderId: string, trackNumber: string) => ({
  messageId: messageId('logistic'),
  type: 'LOGISTIC',
  messageType: 'UPDATE',
  params: {
    orderId: svcOrderId,
    logisticName: 'SvcPacket Ordinary',
    trackingNumber: trackNumber,
    trackingUrl: null,
    trackingStatus: 1,
    logisticsTrackEvents: JSON.stringify([
      { status: 1, activity: 'Departed the warehouse', eventTime: '2026-03-01 10:00:00' },
    ]),
  },
});

describe('shipping pushes go through the tracking sweeper', () => {
  it('three orders shipped, then delivered: each told what the supplier shows, in few looks', async () => {
    const orders = await Promise.all([waitingOrder(), waitingOrder(), waitingOrder()]);
    const before = await ledger(sweeper());
    /** The supplier's pushes, all at once, answered 200 once Temporal has them. */
    const pushAll = async (messages: Record<string, unknown>[]) => {
      const answers = await Promise.all(
        messages.map((m) => pushSigned(gateway, h.account.openId, m)),
      );
      for (const a of answers) {
        expect(a).toMatchObject({ status: 200, body: { outcome: 'delivered' } });
      }
      return messages.length;
    };

    for (const [i, o] of orders.entries()) {
      expect((await advance(o.svcOrderId, 'SHIPPED', `SW-${i}`)).status).toBe(200);
    }
    let pushes = await pushAll(
      orders.flatMap((o, i) => [
        orderMessage(messageId('shipped'), {
          svcOrderId: o.svcOrderId,
          orderNumber: o.n,
          orderStatus: 'SHIPPED',
          trackNumber: `SW-${i}`,
        }),
        logistic(o.svcOrderId, `SW-${i}`),
      ]),
    );
    for (const [i, o] of orders.entries()) {
      const status = await reachStage(
        o.handle,
        Stage.SHIPPED,
        (s) => s.trackingEvents?.[0]?.activity === 'Departed the warehouse',
      );
      expect(status.trackNumber).toBe(`SW-${i}`);
    }

    for (const o of orders) expect((await advance(o.svcOrderId, 'DELIVERED')).status).toBe(200);
    pushes += await pushAll(
      orders.map((o) =>
        orderMessage(messageId('delivered'), {
          svcOrderId: o.svcOrderId,
          orderNumber: o.n,
          orderStatus: 'DELIVERED',
        }),
      ),
    );
    for (const o of orders) {
      const status = await reachStage(o.handle, Stage.COMPLETED);
      expect(status.proofOfDelivery?.length).toBeGreaterThan(0);
      const told = await ledger(o.handle);
      // Told by the sweeper alone, from the supplier's answer: no push and no look-up of its own.
      expect(told.get('supplierEvent')).toBeUndefined();
      expect(told.get('getOrderDetailBatch')).toBeUndefined();
      expect(told.get('supplierStatus')).toBeGreaterThanOrEqual(1);
    }
    const after = await ledger(sweeper());
    const signals = (after.get('ordersPushed') ?? 0) - (before.get('ordersPushed') ?? 0);
    const lookUps =
      (after.get('getOrderDetailBatch') ?? 0) - (before.get('getOrderDetailBatch') ?? 0);
    expect(signals).toBeGreaterThanOrEqual(2);
    expect(signals).toBeLessThan(pushes);
    expect(lookUps).toBeLessThanOrEqual(signals);
  });

  it('a push the supplier does not show moves nothing and tells the order nothing', async () => {
    const o = await waitingOrder();
    const looked = (await sweeper().query(sweeperStatusQuery)).pushes?.orders ?? 0;
    const answer = await pushSigned(
      gateway,
      h.account.openId,
      orderMessage(messageId('forged'), {
        svcOrderId: o.svcOrderId,
        orderNumber: o.n,
        orderStatus: 'DELIVERED',
        trackNumber: 'FORGED-1',
      }),
    );
    expect(answer).toMatchObject({ status: 200, body: { outcome: 'delivered' } });
    await eventually(
      'the sweeper looking at the pushed order',
      () => sweeper().query(sweeperStatusQuery),
      (s) => (s.pushes?.orders ?? 0) > looked,
    );
    const told = await ledger(o.handle);
    expect(told.get('supplierEvent')).toBeUndefined();
    expect(told.get('supplierStatus')).toBeUndefined();
    const status = await o.handle.query(statusQuery);
    expect(status).toMatchObject({ stage: Stage.AWAITING_SHIPMENT });
    expect(JSON.stringify(status)).not.toContain('FORGED-1');
  });
});
