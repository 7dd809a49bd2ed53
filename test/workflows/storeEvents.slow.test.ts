/**
 * Store events, end to end on the real dev server and sandbox: an order's events reach a receiver
 * that checks every signature on its own, in the order they happened, each retried after a
 * refusal with the same id; a store that is down for a while loses nothing and stops nothing; an
 * order that stops for a person says why; without a store address the order emits nothing.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  cancelUpdate,
  Stage,
  statusQuery,
  supplierStatusSignal,
  type OrderStatus,
} from '../../src/order/contract.js';
import { disputeStatusQuery, type DisputeStatus } from '../../src/dispute/contract.js';
import { StoreEventType, type StoreEvent } from '../../src/storeEvents/contract.js';
import { openDispute } from '../../src/client/disputeClient.js';
import { OrderClient } from '../../src/client/orderClient.js';
import { recordedStoreEvents } from '../../src/cli/storeEventHistory.js';
import { StoreEventsBehind } from '../../src/temporal/searchAttributes.js';
import { eventually } from '../support/eventually.js';
import {
  reachStage,
  startOrder,
  sweepOnce,
  validOrder,
  type OrderHarness,
  useOrderHarness,
} from '../support/orders.js';
import { sandboxUrl } from '../support/sandbox.js';
import { StoreReceiver } from '../support/storeReceiver.js';
import { advance, usOrder } from '../supplier/orderHelpers.js';

/** Fast retries for the test; the product's defaults are 5 s doubling to 1 h. */
const RETRY = { retryFirstMs: 300, retryMaxMs: 1_000 };

const FULFILMENT: StoreEvent['type'][] = [
  StoreEventType.OrderCreated,
  StoreEventType.OrderPaid,
  StoreEventType.OrderShipped,
  StoreEventType.OrderDelivered,
  StoreEventType.OrderCompleted,
];

/** Ships and delivers the order at the sandbox; the sweeper tells the workflow. */
async function shipAndDeliver(h: OrderHarness, handle: WorkflowHandle): Promise<void> {
  const { svcOrderId } = await reachStage(handle, Stage.AWAITING_SHIPMENT);
  expect((await advance(svcOrderId!, 'SHIPPED')).status).toBe(200);
  await sweepOnce(h);
  await reachStage(handle, Stage.SHIPPED);
  expect((await advance(svcOrderId!, 'DELIVERED')).status).toBe(200);
  await sweepOnce(h);
}

async function deliveryAttempts(handle: WorkflowHandle): Promise<number> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).filter(
    (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'deliverStoreEvent',
  ).length;
}

async function behindIs(h: OrderHarness, orderNumber: string, behind: boolean): Promise<void> {
  const query = `OrderNumber = '${orderNumber}' AND ${StoreEventsBehind.name} = ${behind}`;
  await eventually(
    query,
    async () => (await h.client.workflow.count(query)).count,
    (n) => n === 1,
  );
}

describe('store events', () => {
  const refusing = new StoreReceiver({ refuseFirst: true });
  beforeAll(() => refusing.up());
  afterAll(() => refusing.down());
  const h = useOrderHarness('store-events', undefined, () => ({
    storeEvents: { url: refusing.url, secret: refusing.secret, ...RETRY },
  }));

  it('flow B: created, paid, shipped with tracking, delivered, completed — each refused once, then delivered with the same id, signed, in order', async () => {
    const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B' } });
    const orderNumber = input.order.orderNumber;
    const handle = await startOrder(h, input);
    await shipAndDeliver(h, handle);
    const done = (await handle.result()) as OrderStatus;
    expect(done.stage).toBe(Stage.COMPLETED);

    const accepted = refusing.accepted(orderNumber);
    expect(accepted.map((e) => e.type)).toEqual(FULFILMENT);
    const mine = refusing.deliveries.filter((d) => d.event.orderNumber === orderNumber);
    expect(mine.every((d) => d.signatureValid)).toBe(true);
    for (const event of accepted) {
      const tries = mine.filter((d) => d.id === event.id);
      expect(
        tries.map((d) => d.status),
        event.type,
      ).toEqual([500, 204]);
      expect(tries[1]!.body, 'a retry sends the same body').toBe(tries[0]!.body);
    }
    // Never a later event before an earlier one was delivered.
    const firstSeen = mine.map((d) => accepted.findIndex((e) => e.id === d.id));
    expect(firstSeen).toEqual([...firstSeen].sort((a, b) => a - b));

    const [created, paid, shipped, , completed] = accepted;
    expect(created).toMatchObject({
      stage: Stage.CREATED,
      data: { svcOrderId: done.svcOrderId, amounts: { currency: 'USD' } },
    });
    expect(paid).toMatchObject({
      stage: Stage.PAID,
      data: { amount: done.amounts?.orderAmount, currency: 'USD' },
    });
    expect(shipped).toMatchObject({
      stage: Stage.SHIPPED,
      data: { trackNumber: done.trackNumber, logisticName: done.logisticName },
    });
    expect(done.trackNumber).toMatch(/\w+/);
    expect(completed?.data).toEqual({ proofOfDelivery: done.proofOfDelivery });
    expect(done.storeEvents).toMatchObject({ mode: 'on', delivered: 5, waiting: [], attempts: 0 });
    expect(await deliveryAttempts(handle)).toBe(10);
    // The body carries no personal data of the order.
    const bodies = mine.map((d) => d.body).join('\n');
    for (const field of ['shippingCustomerName', 'shippingAddress', 'shippingPhone']) {
      const value = (input.order as unknown as Record<string, unknown>)[field];
      if (typeof value === 'string') expect(bodies).not.toContain(value);
    }
  });

  it('a tracking number that changes after shipping is told again', async () => {
    const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B' } });
    const orderNumber = input.order.orderNumber;
    const handle = await startOrder(h, input);
    const { svcOrderId } = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    expect((await advance(svcOrderId!, 'SHIPPED')).status).toBe(200);
    await sweepOnce(h);
    const shipped = await reachStage(handle, Stage.SHIPPED);
    // The supplier re-labels the parcel: the sweeper reports the new number.
    await handle.signal(supplierStatusSignal, {
      messageId: `relabel-${orderNumber}`,
      kind: 'status',
      svcOrderId: svcOrderId!,
      orderStatus: 'SHIPPED',
      trackNumber: 'RELABEL0001',
    });
    await refusing.until('the new tracking number told', () =>
      refusing
        .accepted(orderNumber)
        .some(
          (e) => e.type === StoreEventType.OrderShipped && e.data.trackNumber === 'RELABEL0001',
        ),
    );
    const told = refusing
      .accepted(orderNumber)
      .flatMap((e) => (e.type === StoreEventType.OrderShipped ? [e.data.trackNumber] : []));
    expect(told).toEqual([shipped.trackNumber, 'RELABEL0001']);
  });

  it('an order amended after an interception at its creation tells the store its new supplier order', async () => {
    const input = validOrder({ ...usOrder({ shippingZip: 'ABCDE' }), fulfillment: { flow: 'B' } });
    const orderNumber = input.order.orderNumber;
    const handle = await startOrder(h, input);
    await reachStage(handle, Stage.INTERCEPTED);
    await refusing.until('the interception told', () =>
      refusing
        .accepted(orderNumber)
        .some((e) => e.type === StoreEventType.OrderNeedsAttention && e.stage === 'INTERCEPTED'),
    );
    const orders = new OrderClient(h.client, h.queues);
    expect((await orders.amend(orderNumber, { order: { shippingZip: '90210' } })).accepted).toBe(
      true,
    );
    const paid = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    await refusing.until('paid told', () =>
      refusing.accepted(orderNumber).some((e) => e.type === StoreEventType.OrderPaid),
    );
    const created = refusing
      .accepted(orderNumber)
      .flatMap((e) => (e.type === StoreEventType.OrderCreated ? [e.data.svcOrderId] : []));
    expect(created.at(-1)).toBe(paid.svcOrderId);
  });

  it('a dispute tells the store how it stands: opening, open, resolved with the refund', async () => {
    const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B' } });
    const orderNumber = input.order.orderNumber;
    await reachStage(await startOrder(h, input), Stage.AWAITING_SHIPMENT);
    const orders = new OrderClient(h.client, h.queues);
    const opened = await openDispute(orders, orderNumber, {
      message: 'arrived broken',
      checkEverySeconds: 1,
    });
    const dispute = h.client.workflow.getHandle(opened.workflowId);
    const { disputeId } = await eventually(
      'the dispute open',
      () => dispute.query(disputeStatusQuery),
      (s) => s.stage === 'OPEN',
      60_000,
    );
    const res = await fetch(`${sandboxUrl()}/__sandbox/disputes/${disputeId!}/resolve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ finallyDeal: 1 }),
    });
    expect(res.status).toBe(200);
    const resolved = (await dispute.result()) as DisputeStatus;

    const told = refusing
      .accepted(orderNumber)
      .filter((e) => e.type === StoreEventType.DisputeUpdated);
    expect(told.map((e) => e.stage)).toEqual(['OPENING', 'OPEN', 'RESOLVED']);
    expect(told[2]?.data).toEqual({
      businessDisputeId: opened.businessDisputeId,
      disputeId,
      status: 'RESOLVED',
      outcome: 'refund',
      money: resolved.outcome?.money,
      currency: 'USD',
    });
    // What `dropflow events replay` would send again: the same events, ids and bodies.
    const recorded = await recordedStoreEvents(h.client, orderNumber);
    expect(recorded).toEqual(refusing.accepted(orderNumber));
  });

  it('an order that stops for approval says why and what moves it on; a cancel is told too', async () => {
    const input = validOrder({
      ...usOrder(),
      fulfillment: { flow: 'B', payment: { policy: 'approval' } },
    });
    const orderNumber = input.order.orderNumber;
    const handle = await startOrder(h, input);
    await reachStage(handle, Stage.AWAITING_APPROVAL, (s) => s.waitingFor !== undefined);
    await refusing.until('the stop is told', () =>
      refusing.accepted(orderNumber).some((e) => e.type === StoreEventType.OrderNeedsAttention),
    );
    await handle.executeUpdate(cancelUpdate, { args: [{ reason: 'the customer changed mind' }] });
    const done = (await handle.result()) as OrderStatus;
    expect(done.stage).toBe(Stage.CANCELLED);

    const accepted = refusing.accepted(orderNumber);
    expect(accepted.map((e) => e.type)).toEqual([
      StoreEventType.OrderCreated,
      StoreEventType.OrderNeedsAttention,
      StoreEventType.OrderCancelled,
    ]);
    expect(accepted[1]).toMatchObject({
      stage: Stage.AWAITING_APPROVAL,
      data: { reason: 'the payment waits for approval' },
    });
    expect(JSON.stringify(accepted[1]?.data)).toContain('approvePayment');
    expect(accepted[2]?.data).toEqual({ reason: 'the customer changed mind', by: 'operator' });
  });
});

describe('store events while the store is down', () => {
  const store = new StoreReceiver();
  beforeAll(() => store.reservePort());
  afterAll(() => store.down());
  const h = useOrderHarness('store-down', undefined, () => ({
    storeEvents: { url: store.url, secret: store.secret, ...RETRY },
  }));

  it('the order goes on to COMPLETED and shows its backlog; once the store is back every event arrives, in order', async () => {
    const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B' } });
    const orderNumber = input.order.orderNumber;
    const handle = await startOrder(h, input);
    const waiting = await reachStage(
      handle,
      Stage.AWAITING_SHIPMENT,
      (s) => (s.storeEvents?.attempts ?? 0) > 0,
    );
    expect(waiting.storeEvents?.waiting.map((e) => e.type)).toEqual(
      expect.arrayContaining([StoreEventType.OrderCreated]),
    );
    expect(waiting.storeEvents?.lastFailure?.message).toMatch(/not reached/);
    await behindIs(h, orderNumber, true);

    await shipAndDeliver(h, handle);
    const completed = await eventually(
      'COMPLETED with its events waiting',
      () => handle.query(statusQuery),
      (s) => s.stage === Stage.COMPLETED && s.storeEvents?.waiting.length === 5,
    );
    expect(completed.storeEvents?.delivered).toBe(0);
    expect((await handle.describe()).status.name).toBe('RUNNING');

    await store.up();
    const done = (await handle.result()) as OrderStatus;
    expect(store.accepted(orderNumber).map((e) => e.type)).toEqual(FULFILMENT);
    expect(store.deliveries.every((d) => d.signatureValid)).toBe(true);
    expect(done.storeEvents).toMatchObject({ delivered: 5, waiting: [] });
    await behindIs(h, orderNumber, false);
  });
});

describe('store events without a store address', () => {
  const h = useOrderHarness('store-off');

  it('the first event finds no address: one attempt, nothing more, and the order completes', async () => {
    const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B' } });
    const handle = await startOrder(h, input);
    await shipAndDeliver(h, handle);
    const done = (await handle.result()) as OrderStatus;
    expect(done.stage).toBe(Stage.COMPLETED);
    expect(done.storeEvents).toMatchObject({ mode: 'off', delivered: 0, waiting: [] });
    expect(await deliveryAttempts(handle)).toBe(1);
  });
});
