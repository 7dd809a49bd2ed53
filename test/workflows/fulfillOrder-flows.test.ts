/**
 * Each flow, end to end, on the real dev server and sandbox: the order is created, carted,
 * confirmed, paid and followed (through the tracking sweeper) to COMPLETED with proof of delivery.
 */
import { describe, expect, it } from 'vitest';
import { Patch } from '../../src/durable/versions.js';
import { Stage, supplierStatusSignal } from '../../src/order/contract.js';
import { accountStats, takenCalls } from '../support/sandbox.js';
import {
  reachStage,
  startOrder,
  sweepOnce,
  validOrder,
  useOrderHarness,
} from '../support/orders.js';
import { advance, storeFlowOrder, usOrder } from '../supplier/orderHelpers.js';

const h = useOrderHarness('flows');

/** The patch ids whose markers the run's history holds, in order. */
async function patchMarkers(handle: Awaited<ReturnType<typeof startOrder>>): Promise<string[]> {
  const { events } = await handle.fetchHistory();
  const converter = h.client.options.loadedDataConverter.payloadConverter;
  return (events ?? []).flatMap((e) => {
    const marker = e.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') return [];
    const data = marker.details?.['patch-data']?.payloads?.[0];
    return data ? [converter.fromPayload<{ id: string }>(data).id] : [];
  });
}

/** Ships and delivers the order at the sandbox, letting the sweeper tell the workflow. */
async function deliver(svcOrderId: string, handle: Awaited<ReturnType<typeof startOrder>>) {
  expect((await advance(svcOrderId, 'SHIPPED')).status).toBe(200);
  await sweepOnce(h);
  const shipped = await reachStage(handle, Stage.SHIPPED);
  expect(shipped.trackNumber).toMatch(/\w+/);
  expect((await advance(svcOrderId, 'DELIVERED')).status).toBe(200);
  await sweepOnce(h);
}

describe('fulfillOrder', () => {
  it('flow B: service logistics to COMPLETED, one supplier call per step and no per-order polling', async () => {
    const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B' } });
    const handle = await startOrder(h, input);
    const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    expect(waiting.svcOrderId).toMatch(/\w+/);
    expect(waiting.amounts?.orderAmount).toBeGreaterThan(0);

    // Taken calls: one the supplier refused for its rate limit (a busy machine) did nothing.
    const stats = await accountStats(h.account.openId);
    for (const step of ['createOrderV3', 'addCart', 'addCartConfirm', 'saveGenerateParentOrder']) {
      expect(takenCalls(stats, `shopping/order/${step}`), step).toBe(1);
    }
    expect(takenCalls(stats, 'shopping/pay/payBalanceV2')).toBe(1);
    expect(stats.calls['shopping/order/getOrderDetail']).toBeUndefined();

    await deliver(waiting.svcOrderId!, handle);
    const done = (await handle.result()) as Awaited<ReturnType<typeof reachStage>>;
    expect(done.stage).toBe(Stage.COMPLETED);
    expect(done.proofOfDelivery?.length).toBeGreaterThan(0);
    expect(done.timeline.map((t) => t.stage)).toEqual(
      expect.arrayContaining([
        Stage.RECEIVED,
        Stage.CREATED,
        Stage.IN_CART,
        Stage.CONFIRMED,
        Stage.AWAITING_PAYMENT,
        Stage.PAID,
        Stage.AWAITING_SHIPMENT,
        Stage.SHIPPED,
        Stage.DELIVERED,
        Stage.COMPLETED,
      ]),
    );
    // Every patch before the newest baseline, the gathered join's included, stands behind its
    // one marker, not one per patch.
    expect(await patchMarkers(handle)).toEqual([Patch.Baseline2]);
  });

  it('flow A: platform logistics from a storage chosen by stock, waybill uploaded after payment', async () => {
    const input = validOrder({
      ...usOrder(),
      fulfillment: {
        flow: 'A',
        storage: { mode: 'fromStock' },
        waybill: {
          carrier: 'SF Express',
          trackNumber: 'SF1234567890',
          filename: 'label.pdf',
          contentBase64: Buffer.from('%PDF-1.4 label').toString('base64'),
        },
      },
    });
    const handle = await startOrder(h, input);
    const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    expect(waiting.timeline.some((t) => t.note?.startsWith('storage: ST-CN-SZ'))).toBe(true);
    expect(waiting.timeline.some((t) => t.note?.startsWith('waybill uploaded'))).toBe(true);
    expect(
      takenCalls(await accountStats(h.account.openId), 'shopping/order/uploadWaybillInfo'),
    ).toBe(1);

    await deliver(waiting.svcOrderId!, handle);
    expect(((await handle.result()) as { stage: string }).stage).toBe(Stage.COMPLETED);
  });

  it('flow C: a store order whose variants dropflow connects itself, then service logistics', async () => {
    const { order, connection } = storeFlowOrder('c');
    const input = validOrder({
      ...order,
      fulfillment: { flow: 'C', then: 'B', connections: [connection()] },
    });
    const handle = await startOrder(h, input);
    const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    expect(waiting.flow).toBe('C+B');
    await deliver(waiting.svcOrderId!, handle);
    expect(((await handle.result()) as { stage: string }).stage).toBe(Stage.COMPLETED);
  });

  it('a delivered order without proof of delivery completes after the configured wait, and says so', async () => {
    const input = validOrder({
      ...usOrder(),
      fulfillment: { flow: 'B', proofOfDeliveryWaitHours: 0.0005 },
    });
    const handle = await startOrder(h, input);
    const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    // What the sweeper sends for a delivered order whose proof the supplier does not have yet.
    await handle.signal(supplierStatusSignal, {
      messageId: `sweep:${waiting.svcOrderId!}:DELIVERED:0`,
      kind: 'status',
      orderStatus: 'DELIVERED',
      proofOfDelivery: [],
    });
    const done = (await handle.result()) as Awaited<ReturnType<typeof reachStage>>;
    expect(done.stage).toBe(Stage.COMPLETED);
    expect(done.proofOfDelivery).toBeUndefined();
    expect(done.timeline.at(-1)?.note).toMatch(/no proof of delivery after 0.0005 h/);
  });
});
