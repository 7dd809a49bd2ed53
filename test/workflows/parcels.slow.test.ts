/**
 * One order, several parcels, end to end on the real dev server and sandbox: the supplier splits a
 * paid order (the sandbox's split control), ORDERSPLIT reaches the order through the webhook
 * router, or is lost and the tracking sweeper finds the new codes; the order follows each parcel
 * and tells the store per parcel.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ParcelStage, Stage, statusQuery, type OrderStatus } from '../../src/order/contract.js';
import { StoreEventType, type StoreEvent } from '../../src/storeEvents/contract.js';
import { WebhookRouter } from '../../src/gateway/routing.js';
import { DEFAULT_CHECKOUT_SETTINGS } from '../../src/checkout/contract.js';
import { parseWebhookMessage } from '../../src/supplier/webhookMessages.js';
import { eventually } from '../support/eventually.js';
import {
  reachStage,
  startOrder,
  sweepUntil,
  useOrderHarness,
  validOrder,
  type OrderHarness,
} from '../support/orders.js';
import { StoreReceiver } from '../support/storeReceiver.js';
import { advance, usOrder } from '../supplier/orderHelpers.js';
import { control } from '../sandbox/controls.js';

const RETRY = { retryFirstMs: 300, retryMaxMs: 1_000 };

const LINES = [
  { vid: 'P0001-V1', quantity: 2, storeLineItemId: 'line-a' },
  { vid: 'P0002-V1', quantity: 1, storeLineItemId: 'line-b' },
];

/** A paid two-line order, waiting for its shipment; its supplier order id. */
async function paidOrder(h: OrderHarness): Promise<{ handle: WorkflowHandle; svcOrderId: string }> {
  const input = validOrder({ ...usOrder({ products: LINES }), fulfillment: { flow: 'B' } });
  const handle = await startOrder(h, input);
  const { svcOrderId } = await reachStage(handle, Stage.AWAITING_SHIPMENT);
  return { handle, svcOrderId: svcOrderId! };
}

/** The supplier splits the order, one parcel per line; the new codes. */
async function split(svcOrderId: string): Promise<string[]> {
  const answer = await control<{ splitInto: string[] }>('POST', `orders/${svcOrderId}/split`, {});
  expect(answer.status).toBe(200);
  return answer.body.splitInto;
}

/** ORDERSPLIT as the vendor documents it, through the gateway's router. */
async function pushSplit(h: OrderHarness, parent: string, codes: string[]): Promise<void> {
  const parsed = parseWebhookMessage({
    messageId: `split-${parent}`,
    type: 'ORDERSPLIT',
    messageType: 'INSERT',
    params: {
      originalOrderId: parent,
      orderSplitTime: Date.now(),
      splitOrderList: codes.map((orderCode, i) => ({
        orderCode,
        createAt: Date.now(),
        orderStatus: 300,
        productList: [{ vid: LINES[i]!.vid, quantity: LINES[i]!.quantity }],
      })),
    },
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const router = new WebhookRouter(h.client, h.queues, DEFAULT_CHECKOUT_SETTINGS);
  const routed = await eventually(
    'ORDERSPLIT routed to the order',
    () => router.route(parsed.message, new Date()),
    (r) => r.outcome === 'delivered',
  );
  expect(routed.outcome).toBe('delivered');
}

async function parcelsOf(handle: WorkflowHandle, stage?: Stage): Promise<OrderStatus> {
  return eventually(
    `${handle.workflowId}: split into parcels${stage ? ` at ${stage}` : ''}`,
    () => handle.query(statusQuery),
    (s) => (s.parcels?.length ?? 0) > 0 && (stage === undefined || s.stage === stage),
  );
}

const types = (events: StoreEvent[]) => events.map((e) => e.type);

describe('parcels', () => {
  const store = new StoreReceiver();
  beforeAll(() => store.up());
  afterAll(() => store.down());
  const h = useOrderHarness('parcels', undefined, () => ({
    storeEvents: { url: store.url, secret: store.secret, ...RETRY },
  }));

  it('a split into two parcels, both delivered: one split, two shipped and one delivered event', async () => {
    const { handle, svcOrderId } = await paidOrder(h);
    const codes = await split(svcOrderId);
    await pushSplit(h, svcOrderId, codes);
    const split1 = await parcelsOf(handle);
    expect(split1.parcels!.map((p) => [p.code, p.stage])).toEqual([
      [svcOrderId, ParcelStage.SPLIT],
      [codes[0], ParcelStage.AWAITING_SHIPMENT],
      [codes[1], ParcelStage.AWAITING_SHIPMENT],
    ]);

    expect((await advance(codes[0]!, 'SHIPPED')).status).toBe(200);
    await sweepUntil(h, handle, 'first parcel shipped', (s) => s.stage === Stage.SHIPPED);
    expect((await advance(codes[0]!, 'DELIVERED')).status).toBe(200);
    const one = await sweepUntil(h, handle, 'first parcel delivered', (s) =>
      s.parcels!.some((p) => p.stage === ParcelStage.DELIVERED),
    );
    // Half of it is still at the warehouse: not delivered.
    expect(one.stage).toBe(Stage.SHIPPED);
    expect((await advance(codes[1]!, 'DELIVERED')).status).toBe(200);
    await sweepUntil(h, handle, 'completed', (s) => s.stage === Stage.COMPLETED);
    const done = (await handle.result()) as OrderStatus;
    expect(done.stage).toBe(Stage.COMPLETED);
    expect(done.proofOfDelivery?.length).toBeGreaterThanOrEqual(2);

    const events = await eventually(
      'every event delivered',
      () => Promise.resolve(store.accepted(done.orderNumber)),
      (e) => e.some((x) => x.type === StoreEventType.OrderCompleted),
    );
    expect(types(events)).toEqual([
      StoreEventType.OrderCreated,
      StoreEventType.OrderPaid,
      StoreEventType.OrderSplit,
      StoreEventType.OrderShipped,
      StoreEventType.OrderShipped,
      StoreEventType.OrderDelivered,
      StoreEventType.OrderCompleted,
    ]);
    const splitEvent = events[2]!;
    expect(splitEvent.data).toEqual({
      parentCode: svcOrderId,
      parcels: [
        {
          code: codes[0],
          lines: [LINES[0]].map((l) => ({
            vid: l!.vid,
            quantity: l!.quantity,
            storeLineId: l!.storeLineItemId,
          })),
        },
        { code: codes[1], lines: [{ vid: LINES[1]!.vid, quantity: 1, storeLineId: 'line-b' }] },
      ],
    });
    const shipped = events.filter((e) => e.type === StoreEventType.OrderShipped);
    expect(shipped.map((e) => (e.data as { parcel?: { code: string } }).parcel?.code)).toEqual(
      codes,
    );
    expect(shipped.every((e) => (e.data as { trackNumber?: string }).trackNumber)).toBeTruthy();
    const delivered = events[5]!.data as { parcels?: { code: string }[] };
    expect(delivered.parcels?.map((p) => p.code).sort()).toEqual([...codes].sort());
  });

  it('a split webhook lost: the sweeper finds the new codes and the order looks them up', async () => {
    const { handle, svcOrderId } = await paidOrder(h);
    const codes = await split(svcOrderId);
    for (const code of codes) expect((await advance(code, 'SHIPPED')).status).toBe(200);
    const shipped = await sweepUntil(h, handle, 'split found', (s) => (s.parcels?.length ?? 0) > 0);
    expect(
      shipped.parcels!.filter((p) => p.stage !== ParcelStage.SPLIT).map((p) => p.code),
    ).toEqual(codes);
    for (const code of codes) expect((await advance(code, 'DELIVERED')).status).toBe(200);
    await sweepUntil(h, handle, 'completed', (s) => s.stage === Stage.COMPLETED);
    const done = (await handle.result()) as OrderStatus;
    expect(done.parcels!.filter((p) => p.stage === ParcelStage.DELIVERED)).toHaveLength(2);
  });

  it('a child cancelled, the other delivered: COMPLETED, the cancelled lines told to the store', async () => {
    const { handle, svcOrderId } = await paidOrder(h);
    const codes = await split(svcOrderId);
    await pushSplit(h, svcOrderId, codes);
    await parcelsOf(handle);
    expect((await control('POST', `orders/${codes[1]}/cancel`)).status).toBe(200);
    expect((await advance(codes[0]!, 'DELIVERED')).status).toBe(200);
    await sweepUntil(h, handle, 'completed', (s) => s.stage === Stage.COMPLETED);
    const done = (await handle.result()) as OrderStatus;
    expect(done.parcels!.find((p) => p.code === codes[1])?.stage).toBe(ParcelStage.CANCELLED);
    const events = await eventually(
      'every event delivered',
      () => Promise.resolve(store.accepted(done.orderNumber)),
      (e) => e.some((x) => x.type === StoreEventType.OrderCompleted),
    );
    const delivered = events.find((e) => e.type === StoreEventType.OrderDelivered)!.data as {
      parcels: { code: string }[];
      cancelledParcels?: { code: string; lines: unknown[] }[];
    };
    expect(delivered.parcels.map((p) => p.code)).toEqual([codes[0]]);
    expect(delivered.cancelledParcels).toMatchObject([
      { code: codes[1], lines: [{ vid: 'P0002-V1', quantity: 1, storeLineId: 'line-b' }] },
    ]);
  });
});
