/**
 * Delivery promises end to end on the real dev server and sandbox, with deadlines of seconds: a
 * missed one flags the order (SlaBreached), tells the store (`order.late`) and shows in
 * `dropflow list --late` and `dropflow status --json`, while the order goes on as before; the
 * store's own deadlines (its account's) apply where the order sets none; an order that keeps its
 * promises is never flagged.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { staticAccountDirectory } from '../../src/accounts/staticDirectory.js';
import { DEFAULT_ACCOUNT } from '../../src/accounts/contract.js';
import { OrderClient, type OrderSummary } from '../../src/client/orderClient.js';
import { Stage, type OrderStatus } from '../../src/order/contract.js';
import type { DeadlineView, SlaDurations } from '../../src/terms/sla.js';
import { StoreEventType, type StoreEventOf } from '../../src/storeEvents/contract.js';
import { SlaBreached } from '../../src/temporal/searchAttributes.js';
import { runDropflow } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { nameScenario } from '../support/histories.js';
import { reachStage, sweepOnce, useOrderHarness, type OrderHarness } from '../support/orders.js';
import { StoreReceiver } from '../support/storeReceiver.js';
import { advance, usOrder } from '../supplier/orderHelpers.js';

/** The store's own deadlines, as its account's registry record gives them. */
const STORE_SLA: SlaDurations = { paidWithin: 'P1D', deliveredWithin: 'P30D' };

const store = new StoreReceiver();
beforeAll(() => store.up());
afterAll(() => store.down());
const h = useOrderHarness('sla', undefined, () => ({
  storeEvents: { url: store.url, secret: store.secret, retryFirstMs: 300, retryMaxMs: 1_000 },
}));

function orders(harness: OrderHarness): OrderClient {
  const accounts = staticAccountDirectory([
    { id: DEFAULT_ACCOUNT, tier: 1, apiKey: 'unused', intakeTokenSha256: [], sla: STORE_SLA },
  ]);
  return new OrderClient(harness.client, harness.queues, { accounts });
}

async function submit(
  sla: SlaDurations | undefined,
  payment: object = { policy: 'balance' },
): Promise<{ orderNumber: string; handle: WorkflowHandle }> {
  const order = usOrder();
  nameScenario(`order:${order.orderNumber}`);
  await orders(h).submit({
    ...order,
    fulfillment: { flow: 'B', payment, ...(sla !== undefined && { sla }) },
  });
  return {
    orderNumber: order.orderNumber,
    handle: h.client.workflow.getHandle(`order:${order.orderNumber}`),
  };
}

function deadline(status: OrderStatus, name: string): DeadlineView | undefined {
  return status.deadlines?.find((d) => d.deadline === name);
}

async function lateInVisibility(orderNumber: string, deadlines: string): Promise<void> {
  const query = `OrderNumber = '${orderNumber}' AND ${SlaBreached.name} = '${deadlines}'`;
  await eventually(
    query,
    async () => (await h.client.workflow.count(query)).count,
    (n) => n === 1,
  );
}

function lateEvents(orderNumber: string): StoreEventOf<'order.late'>[] {
  return store
    .accepted(orderNumber)
    .filter((e): e is StoreEventOf<'order.late'> => e.type === StoreEventType.OrderLate);
}

async function cli(args: string[]): Promise<unknown> {
  const run = await runDropflow([
    ...args,
    '--json',
    '--temporal-address',
    inject('temporalAddress'),
    '--namespace',
    inject('temporalNamespace'),
  ]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as unknown;
}

const HOUR = 3_600;
const DAY = 24 * HOUR;

/** The duration of every timer the order's run started, in seconds. */
async function timerSeconds(handle: WorkflowHandle): Promise<number[]> {
  const history = await handle.fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const timeout = e.timerStartedEventAttributes?.startToFireTimeout;
    return timeout ? [Number(timeout.seconds ?? 0) + (timeout.nanos ?? 0) / 1e9] : [];
  });
}

async function shipAndDeliver(handle: WorkflowHandle, svcOrderId: string): Promise<OrderStatus> {
  expect((await advance(svcOrderId, 'SHIPPED')).status).toBe(200);
  await sweepOnce(h);
  await reachStage(handle, Stage.SHIPPED);
  expect((await advance(svcOrderId, 'DELIVERED')).status).toBe(200);
  await sweepOnce(h);
  return (await handle.result()) as OrderStatus;
}

describe('delivery promises', () => {
  it('a missed deadline flags the order, tells the store and lists it as late; the order goes on to COMPLETED', async () => {
    const { orderNumber, handle } = await submit({ shippedWithin: 'PT5S' });
    const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    expect(deadline(waiting, 'paid')).toMatchObject({ source: 'store', within: 'P1D' });
    expect(deadline(waiting, 'paid')?.state).toBe('met');

    await lateInVisibility(orderNumber, 'shipped');
    await store.until('order.late', () => lateEvents(orderNumber).length === 1);
    const [late] = lateEvents(orderNumber);
    const status = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    const shipped = deadline(status, 'shipped')!;
    expect(shipped).toMatchObject({ state: 'missed', within: 'PT5S', source: 'order' });
    expect(late!.data).toEqual({
      deadline: 'shipped',
      within: 'PT5S',
      dueAt: shipped.dueAt,
      lateSeconds: expect.any(Number) as number,
    });
    expect(late!.stage).toBe(Stage.AWAITING_SHIPMENT);
    expect(status.timeline.at(-1)?.note).toMatch(/^late: shipped was due/);

    const listed = await orders(h).list({ late: true });
    expect(listed.find((o) => o.orderNumber === orderNumber)?.late).toEqual(['shipped']);
    const fromCli = (await cli(['list', '--late'])) as OrderSummary[];
    expect(fromCli.find((o) => o.orderNumber === orderNumber)).toMatchObject({
      late: ['shipped'],
      stage: Stage.AWAITING_SHIPMENT,
    });
    const statusCli = (await cli(['status', orderNumber])) as OrderStatus;
    expect(deadline(statusCli, 'shipped')?.state).toBe('missed');

    const done = await shipAndDeliver(handle, waiting.svcOrderId!);
    expect(done.stage).toBe(Stage.COMPLETED);
    const metLate = deadline(done, 'shipped')!;
    expect(metLate.state).toBe('missed');
    expect(metLate.metAt).toBeDefined();
    expect(metLate.lateSeconds).toBeGreaterThanOrEqual(0);
    expect(deadline(done, 'delivered')).toMatchObject({ state: 'met', source: 'store' });
    // One `order.late` per missed deadline, nothing else late.
    expect(lateEvents(orderNumber)).toHaveLength(1);
  });

  it('an order waiting for approval misses paidWithin while it waits, and is paid once approved', async () => {
    const { orderNumber, handle } = await submit({ paidWithin: 'PT5S' }, { policy: 'approval' });
    await reachStage(handle, Stage.AWAITING_APPROVAL);
    await lateInVisibility(orderNumber, 'paid');
    const waiting = await reachStage(handle, Stage.AWAITING_APPROVAL);
    expect(deadline(waiting, 'paid')?.state).toBe('missed');
    expect(waiting.waitingFor).toMatch(/approvePayment/);

    await orders(h).approvePayment(orderNumber, { by: 'test' });
    const paid = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    expect(deadline(paid, 'paid')).toMatchObject({ state: 'missed' });
    expect(deadline(paid, 'paid')?.metAt).toBeDefined();
    await store.until('order.late', () => lateEvents(orderNumber).length === 1);
    expect(lateEvents(orderNumber)[0]!.data.deadline).toBe('paid');
  });

  it('an order that keeps its promises is never flagged', async () => {
    const { orderNumber, handle } = await submit({
      paidWithin: 'PT1H',
      shippedWithin: 'PT1H',
      firstScanWithin: 'P1D',
    });
    const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    const done = await shipAndDeliver(handle, waiting.svcOrderId!);
    expect(done.deadlines?.map((d) => [d.deadline, d.state])).toEqual([
      ['paid', 'met'],
      ['shipped', 'met'],
      ['firstScan', 'met'],
      ['delivered', 'met'],
    ]);
    expect(lateEvents(orderNumber)).toEqual([]);
    // One timer for the deadline due first, not one per tick nor per event: paid, then shipped
    // (1 h each), then in transit the first scan's (1 d) or, once it is met, the delivery's (the
    // store's 30 d). The order's own wait for proof of delivery is 72 h exactly.
    const timers = (await timerSeconds(handle)).filter((s) => s !== 72 * HOUR);
    const within = (low: number, high: number) => timers.filter((s) => s > low && s <= high);
    expect(within(50 * 60, HOUR)).toHaveLength(2);
    expect(within(23 * HOUR, 30 * DAY)).toHaveLength(1);
    const run = await handle.describe();
    expect(run.typedSearchAttributes.get(SlaBreached)).toBeUndefined();
    expect((await orders(h).list({ late: true })).map((o) => o.orderNumber)).not.toContain(
      orderNumber,
    );
  });
});
