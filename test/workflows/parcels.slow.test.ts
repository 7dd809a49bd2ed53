/**
 * One order, several parcels, end to end on the real dev server and sandbox: the supplier splits a
 * paid order (the sandbox's split control), ORDERSPLIT reaches the order through the webhook
 * router, or is lost and the tracking sweeper finds the new codes; the order follows each parcel
 * and tells the store per parcel.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import {
  cancelUpdate,
  ParcelStage,
  Stage,
  statusQuery,
  type OrderStatus,
} from '../../src/order/contract.js';
import { StoreEventType, type StoreEvent } from '../../src/storeEvents/contract.js';
import { WebhookRouter } from '../../src/gateway/routing.js';
import { DEFAULT_CHECKOUT_SETTINGS } from '../../src/terms/checkoutSettings.js';
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
import { OrderClient } from '../../src/client/orderClient.js';
import { runDropflow } from '../support/cli.js';
import { openDispute } from '../../src/client/disputeClient.js';
import { disputeReaches } from '../support/disputes.js';
import { accountStats, takenCalls } from '../support/sandbox.js';
import { splitBeforeCreate } from './reconcile-support.js';

const RETRY = { retryFirstMs: 300, retryMaxMs: 1_000 };

const LINES = [
  { vid: 'P0001-V1', quantity: 2, storeLineItemId: 'line-a' },
  { vid: 'P0002-V1', quantity: 1, storeLineItemId: 'line-b' },
];

/** A paid two-line order, waiting for its shipment; its supplier order id. */
async function paidOrder(
  h: OrderHarness,
  fulfillment: object = {},
): Promise<{ handle: WorkflowHandle; svcOrderId: string }> {
  const input = validOrder({
    ...usOrder({ products: LINES }),
    fulfillment: { flow: 'B', ...fulfillment },
  });
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

/** `dropflow list` as an operator runs it: the order's row. */
async function listedRow(orderNumber: string): Promise<string | undefined> {
  const run = await runDropflow([
    'list',
    '--limit',
    '1000',
    '--temporal-address',
    inject('temporalAddress'),
    '--namespace',
    inject('temporalNamespace'),
  ]);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout.split('\n').find((line) => line.startsWith(`${orderNumber} `));
}

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

    // `dropflow list` shows the parcels on their way.
    const orders = new OrderClient(h.client, h.queues);
    const listed = await eventually(
      'the parcels listed',
      () => orders.list({ limit: 1000 }),
      (all) => all.find((o) => o.orderNumber === split1.orderNumber)?.parcels?.length === 2,
    );
    expect(listed.find((o) => o.orderNumber === split1.orderNumber)?.parcels).toEqual(codes);
    expect(await listedRow(split1.orderNumber)).toContain(`2: ${codes.join(',')}`);

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

  it('forged parcel news (one parcel CANCELLED, the other SHIPPED with a tracking) is looked up and not acted on; real news is', async () => {
    const { handle, svcOrderId } = await paidOrder(h, { supplierLagSeconds: 2 });
    const codes = await split(svcOrderId);
    await pushSplit(h, svcOrderId, codes);
    const { orderNumber } = await parcelsOf(handle);
    const router = new WebhookRouter(h.client, h.queues, DEFAULT_CHECKOUT_SETTINGS);
    const pushOrder = async (id: string, params: Record<string, unknown>) => {
      const parsed = parseWebhookMessage({
        messageId: id,
        type: 'ORDER',
        messageType: 'UPDATE',
        params: { privateOutboundOrder: false, orderItems: [], orderNumber, ...params },
      });
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
      const routed = await router.route(parsed.message, new Date());
      expect(routed.outcome).toBe('delivered');
    };

    await pushOrder(`forged-cancel-${codes[0]}`, {
      svcOrderId: codes[0],
      orderStatus: 'CANCELLED',
    });
    await pushOrder(`forged-ship-${codes[1]}`, {
      svcOrderId: codes[1],
      orderStatus: 'SHIPPED',
      trackNumber: 'FORGED-PARCEL-1',
      trackingUrl: 'https://phish.example.com/t',
    });
    const notedNotActed = (st: OrderStatus) =>
      st.timeline
        .map((t) => t.note ?? '')
        .filter((n) => /^a webhook said .*; not acted on/.test(n))
        .join(' | ');
    const after = await eventually(
      `${handle.workflowId}: both forged parcel news noted, not acted on`,
      () => handle.query(statusQuery),
      (st) =>
        notedNotActed(st).includes(`${codes[0]} CANCELLED`) &&
        notedNotActed(st).includes(`${codes[1]} SHIPPED with tracking FORGED-PARCEL-1`),
      60_000,
    );
    expect(after.parcels!.filter((p) => p.stage !== ParcelStage.SPLIT).map((p) => p.stage)).toEqual(
      [ParcelStage.AWAITING_SHIPMENT, ParcelStage.AWAITING_SHIPMENT],
    );
    expect(after.parcels!.some((p) => p.trackNumber === 'FORGED-PARCEL-1')).toBe(false);
    expect(after.stage).toBe(Stage.AWAITING_SHIPMENT);

    // The supplier ships the second parcel under a number of its own; its push is confirmed.
    expect((await advance(codes[1]!, 'SHIPPED', 'REAL-PARCEL-1')).status).toBe(200);
    await pushOrder(`real-ship-${codes[1]}`, {
      svcOrderId: codes[1],
      orderStatus: 'SHIPPED',
      trackNumber: 'REAL-PARCEL-1',
    });
    const shipped = await reachStage(handle, Stage.SHIPPED);
    expect(shipped.parcels!.find((p) => p.code === codes[1])).toMatchObject({
      stage: ParcelStage.SHIPPED,
      trackNumber: 'REAL-PARCEL-1',
    });
    expect(shipped.parcels!.find((p) => p.code === codes[0])?.stage).toBe(
      ParcelStage.AWAITING_SHIPMENT,
    );
    const told = store
      .accepted(orderNumber)
      .filter((e) => e.type === StoreEventType.OrderShipped)
      .map((e) => (e.data as { trackNumber?: string }).trackNumber);
    expect(told).not.toContain('FORGED-PARCEL-1');
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

  it('a late parcel: the one still on its way is named late, the delivered one is not; COMPLETED with the last', async () => {
    const { handle, svcOrderId } = await paidOrder(h, { sla: { deliveredWithin: 'PT5S' } });
    const codes = await split(svcOrderId);
    await pushSplit(h, svcOrderId, codes);
    await parcelsOf(handle);
    // One parcel delivered, the other in transit, both seen by one sweep: the deadline counts from
    // there, and only the parcel in transit can miss it.
    expect((await advance(codes[1]!, 'SHIPPED')).status).toBe(200);
    expect((await advance(codes[0]!, 'DELIVERED')).status).toBe(200);
    await sweepUntil(h, handle, 'one delivered, one shipped', (s) =>
      s.parcels!.some((p) => p.code === codes[0] && p.stage === ParcelStage.DELIVERED),
    );
    const orderNumber = (await handle.query(statusQuery)).orderNumber;
    const late = await eventually(
      'order.late',
      () => Promise.resolve(store.accepted(orderNumber)),
      (e) => e.some((x) => x.type === StoreEventType.OrderLate),
    );
    expect(late.find((x) => x.type === StoreEventType.OrderLate)!.data).toMatchObject({
      deadline: 'delivered',
      parcels: [codes[1]],
    });
    const lateStatus = await handle.query(statusQuery);
    expect(lateStatus.stage).toBe(Stage.SHIPPED);
    expect(lateStatus.parcels!.find((p) => p.code === codes[1])?.late).toEqual(['delivered']);
    expect(lateStatus.parcels!.find((p) => p.code === codes[0])?.late).toBeUndefined();
    expect(lateStatus.timeline.some((t) => t.note?.includes(`parcel ${codes[1]}`))).toBe(true);

    expect((await advance(codes[1]!, 'DELIVERED')).status).toBe(200);
    await sweepUntil(h, handle, 'completed', (s) => s.stage === Stage.COMPLETED);
    const done = (await handle.result()) as OrderStatus;
    expect(done.deadlines?.find((d) => d.deadline === 'delivered')?.state).toBe('missed');
  });

  it('a dispute on one parcel: opened on its code, shown by the dispute and the order; the other parcel untouched', async () => {
    const { handle, svcOrderId } = await paidOrder(h);
    const codes = await split(svcOrderId);
    await pushSplit(h, svcOrderId, codes);
    const { orderNumber } = await parcelsOf(handle);
    const orders = new OrderClient(h.client, h.queues);
    // A split order's dispute must say whose lines it concerns: the order it was split from is
    // no longer the supplier's to dispute.
    await expect(openDispute(orders, orderNumber, { message: 'broken' })).rejects.toThrow(
      /parcel: .*split into/,
    );
    await expect(
      openDispute(orders, orderNumber, { message: 'broken', parcel: svcOrderId }),
    ).rejects.toThrow(/parcel: must be one of/);

    const opened = await openDispute(orders, orderNumber, {
      parcel: codes[1]!,
      message: 'arrived broken',
      checkEverySeconds: 60,
    });
    const open = await disputeReaches(h, opened.workflowId, 'OPEN');
    expect(open.parcel).toBe(codes[1]);
    const atSupplier = await h.account.client.api.getDisputeList({ orderId: codes[1]! });
    expect(atSupplier.list.map((d) => d.id)).toEqual([open.disputeId]);
    expect((await h.account.client.api.getDisputeList({ orderId: codes[0]! })).list).toEqual([]);

    const shown = await eventually(
      'the order shows the dispute on its parcel',
      () => handle.query(statusQuery),
      (s) => s.parcels!.some((p) => p.code === codes[1] && p.dispute === 'OPEN'),
    );
    expect(shown.dispute).toMatchObject({ parcel: codes[1], stage: 'OPEN' });
    const other = shown.parcels!.find((p) => p.code === codes[0])!;
    expect(other.dispute).toBeUndefined();
    expect(other.stage).toBe(ParcelStage.AWAITING_SHIPMENT);
    expect(shown.timeline.some((t) => t.note?.includes(`on parcel ${codes[1]}`))).toBe(true);

    const handleOf = h.client.workflow.getHandle(opened.workflowId);
    await handleOf.executeUpdate(cancelUpdate, { args: [{ reason: 'test over' }] });
  });

  it("a split before the create's answer: the order takes no part for itself and creates nothing again", async () => {
    const create = 'shopping/order/createOrderV3';
    const { handle, codes, stopped, before } = await splitBeforeCreate(h, LINES);
    const { openId } = h.account;
    // No part is taken for the whole order, and each is named with its lines.
    expect(stopped.svcOrderId).toBeUndefined();
    for (const [i, code] of codes.entries()) {
      expect(stopped.error?.message).toContain(`${code} (${LINES[i]!.quantity} × ${LINES[i]!.vid}`);
    }
    expect(stopped.waitingFor).toMatch(/resume looks again/);
    const after = await accountStats(openId);
    expect(takenCalls(after, create) - takenCalls(before, create)).toBe(1);
    expect(after.ordersCreated - before.ordersCreated).toBe(1);
    expect(after.payments - before.payments).toBe(0);
    // Cancelled, it removes every part it made at the supplier.
    await handle.executeUpdate(cancelUpdate, { args: [{ reason: 'test over' }] });
    const cancelled = (await handle.result()) as OrderStatus;
    expect(cancelled.stage).toBe(Stage.CANCELLED);
    for (const code of codes) {
      expect(cancelled.timeline.some((t) => t.note === `deleted ${code} at the supplier`)).toBe(
        true,
      );
    }
  });
});
