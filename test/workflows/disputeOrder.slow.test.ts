/**
 * Disputes: disputeProducts → disputeConfirmInfo → create → follow the result, once per request;
 * the open order workflow hears how it ends. The happy path is disputeRefund.test.ts (fast suite);
 * here, what goes wrong: lost answers, lagging lists, look-alikes, long follow-ups.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDispute } from '../../src/client/disputeClient.js';
import { cancelUpdate, resumeUpdate, statusQuery } from '../../src/order/contract.js';
import {
  DISPUTE_WORKFLOW,
  disputeStatusQuery,
  disputeWorkflowId,
  type DisputeInput,
  type DisputeStatus,
} from '../../src/dispute/contract.js';
import { StoreEventType } from '../../src/storeEvents/contract.js';
import { OrderNumber } from '../../src/temporal/searchAttributes.js';
import { OrderClient } from '../../src/client/orderClient.js';
import { disputeReaches as disputeAt, shippableOrder as paidOrder } from '../support/disputes.js';
import { eventually } from '../support/eventually.js';
import {
  accountStats,
  clearFaults,
  injectFault,
  sandboxUrl,
  takenCalls,
} from '../support/sandbox.js';
import { useOrderHarness } from '../support/orders.js';
import { StoreReceiver } from '../support/storeReceiver.js';

const h = useOrderHarness('disputes');

const disputeReaches = (workflowId: string, stage: DisputeStatus['stage'], harness = h) =>
  disputeAt(harness, workflowId, stage);
const shippableOrder = (harness = h) => paidOrder(harness);

const createCalls = async () => takenCalls(await accountStats(h.account.openId), 'disputes/create');

async function sandboxPost(path: string, body: unknown): Promise<Response> {
  return fetch(`${sandboxUrl()}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** New disputes reach the account's dispute list only `ms` after they opened (null: at once). */
async function disputeListLag(openId: string, ms: number | null): Promise<void> {
  expect((await sandboxPost('/__sandbox/settings', { openId, disputeLagMs: ms })).status).toBe(200);
}

/** A dispute the supplier's staff open on the order in their console; its id. */
async function consoleDispute(openId: string, orderId: string, reasonId: number): Promise<string> {
  const res = await sandboxPost('/__sandbox/disputes', {
    openId,
    orderId,
    disputeReasonId: reasonId,
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

it('adopts the dispute a lost createDispute opened instead of asking twice', async () => {
  const { input, order } = await shippableOrder();
  const { svcOrderId } = await order.query(statusQuery);
  const createsBefore = await createCalls();
  // The supplier opens the dispute, then the connection drops before the answer.
  await injectFault({ path: 'disputes/create', kind: 'commitThenDrop', openId: h.account.openId });

  const orders = new OrderClient(h.client, h.queues);
  const opened = await openDispute(orders, input.order.orderNumber, {
    message: 'never arrived',
    checkEverySeconds: 60,
  });
  expect(opened.outcome).toBe('started');
  const open = await disputeReaches(opened.workflowId, 'OPEN');

  const listed = await h.account.client.api.getDisputeList({ orderId: svcOrderId! });
  expect(listed.list).toHaveLength(1);
  expect(open.disputeId).toBe(listed.list[0]?.id);
  // Looked up, not sent again.
  expect((await createCalls()) - createsBefore).toBe(1);
  expect(open.timeline.map((t) => t.stage)).not.toContain('NEEDS_ATTENTION');

  const handle = h.client.workflow.getHandle(opened.workflowId);
  const cancelled = await handle.executeUpdate(cancelUpdate, { args: [{ reason: 'test over' }] });
  expect(cancelled).toMatchObject({ accepted: true, stage: 'CANCELLED' });
});

it('a lost createDispute whose look-up keeps failing stops at NEEDS_ATTENTION; after resume the one dispute is found', async () => {
  const { input, order } = await shippableOrder();
  const { svcOrderId } = await order.query(statusQuery);
  const { openId } = h.account;
  const createsBefore = await createCalls();
  await injectFault({ path: 'disputes/create', kind: 'commitThenDrop', openId });

  const orders = new OrderClient(h.client, h.queues);
  const opened = await openDispute(orders, input.order.orderNumber, {
    message: 'lost twice',
    checkEverySeconds: 60,
  });
  const handle = h.client.workflow.getHandle(opened.workflowId);
  // Once the create went out, the dispute list answers nothing usable until the test clears the
  // faults. The account's one request per second leaves time to arm it before the look-up.
  await eventually('the create to be sent', createCalls, (n) => n > createsBefore, 60_000, 20);
  await injectFault({ path: 'disputes/getDisputeList', kind: 'http5xx', times: 100, openId });
  const stopped = await eventually(
    `dispute ${opened.workflowId} stops for a person`,
    () => handle.query(disputeStatusQuery),
    (s) => s.stage === 'NEEDS_ATTENTION',
    100_000,
  );
  expect(stopped.error?.step).toBe('createDispute look-up');
  expect(stopped.outcomeUnknown?.step).toBe('createDispute');
  expect((await handle.describe()).status.name).toBe('RUNNING');
  expect((await createCalls()) - createsBefore).toBe(1);

  await clearFaults(openId);
  const resumed = await handle.executeUpdate(resumeUpdate, { args: [{ by: 'test' }] });
  expect(resumed.accepted).toBe(true);
  const open = await disputeReaches(opened.workflowId, 'OPEN');
  const listed = await h.account.client.api.getDisputeList({ orderId: svcOrderId! });
  expect(listed.list).toHaveLength(1);
  expect(open.disputeId).toBe(listed.list[0]?.id);
  expect((await createCalls()) - createsBefore).toBe(1);

  await handle.executeUpdate(cancelUpdate, { args: [{ reason: 'test over' }] });
});

it('with a lagging dispute list and another open dispute on the order, adopts only the dispute its create opened', async () => {
  const { input, order } = await shippableOrder();
  const { svcOrderId } = await order.query(statusQuery);
  const { openId } = h.account;
  const listed = async () =>
    (await h.account.client.api.getDisputeList({ orderId: svcOrderId! })).list.map((x) => x.id);
  // The supplier's staff opened a dispute of another reason ("Wrong item") on the order.
  const other = await consoleDispute(openId, svcOrderId!, 3);
  const createsBefore = await createCalls();
  await disputeListLag(openId, 5_000);
  try {
    await eventually('the console dispute to be listed', listed, (ids) => ids.includes(other));

    const orders = new OrderClient(h.client, h.queues);
    const opened = await openDispute(orders, input.order.orderNumber, {
      message: 'lagging list',
      checkEverySeconds: 60,
    });
    const open = await disputeReaches(opened.workflowId, 'OPEN');

    const ids = await eventually('both disputes to be listed', listed, (x) => x.length === 2);
    const ours = ids.find((id) => id !== other);
    expect(open.disputeId).toBe(ours);
    expect(open.reason).toBe('Item not received');
    expect((await createCalls()) - createsBefore).toBe(1);
    expect(open.timeline.map((t) => t.stage)).not.toContain('NEEDS_ATTENTION');

    const handle = h.client.workflow.getHandle(opened.workflowId);
    await handle.executeUpdate(cancelUpdate, { args: [{ reason: 'test over' }] });
    const after = await h.account.client.api.getDisputeList({ orderId: svcOrderId! });
    // The cancel reached this request's dispute only.
    expect(Object.fromEntries(after.list.map((x) => [x.id, x.status]))).toEqual({
      [ours!]: 'Cancelled',
      [other]: 'Processing',
    });
  } finally {
    await disputeListLag(openId, null);
  }
});

describe('a dispute followed for long', () => {
  const store = new StoreReceiver();
  beforeAll(() => store.reservePort());
  afterAll(() => store.down());
  const hs = useOrderHarness('disputes-long', undefined, () => ({
    storeEvents: { url: store.url, secret: store.secret, retryFirstMs: 300, retryMaxMs: 1_000 },
  }));

  it('continues as new with its dispute and its undelivered store events; each event reaches the store once, in order', async () => {
    const { input, order } = await shippableOrder(hs);
    const { svcOrderId } = await order.query(statusQuery);
    const orderNumber = input.order.orderNumber;
    const dispute: DisputeInput = {
      orderNumber,
      svcOrderId: svcOrderId!,
      businessDisputeId: `long-${orderNumber}`,
      lines: [],
      expect: 'refund',
      refundTo: 'balance',
      message: 'followed for long',
      imageUrls: [],
      checkEverySeconds: 1,
      historyLimit: 120,
    };
    const workflowId = disputeWorkflowId(orderNumber, dispute.businessDisputeId);
    const first = await hs.client.workflow.start(DISPUTE_WORKFLOW, {
      workflowId,
      taskQueue: hs.queues.orders,
      args: [dispute],
      typedSearchAttributes: [{ key: OrderNumber, value: orderNumber }],
    });
    // The store is down: OPENING and OPEN wait in the outbox.
    const open = await disputeReaches(workflowId, 'OPEN', hs);
    const handle = hs.client.workflow.getHandle(workflowId);
    await eventually(
      'the dispute to continue as new',
      () => handle.describe(),
      (x) => x.runId !== first.firstExecutionRunId,
      120_000,
    );
    // The next run keeps the workflow's search attributes.
    const described = await handle.describe();
    expect(described.typedSearchAttributes.get(OrderNumber)).toBe(orderNumber);
    const continued = await handle.query(disputeStatusQuery);
    expect(continued.stage).toBe('OPEN');
    expect(continued.disputeId).toBe(open.disputeId);
    expect(continued.timeline).toEqual(open.timeline);
    expect(continued.storeEvents?.waiting.length).toBe(2);

    await store.up();
    const res = await sandboxPost(`/__sandbox/disputes/${open.disputeId!}/resolve`, {
      finallyDeal: 1,
    });
    expect(res.status).toBe(200);
    const resolved = (await handle.result()) as DisputeStatus;
    expect(resolved.stage).toBe('RESOLVED');
    expect(resolved.outcome?.result).toBe('refund');

    const events = store
      .accepted(orderNumber)
      .filter((e) => e.type === StoreEventType.DisputeUpdated);
    expect(events.map((e) => e.stage)).toEqual(['OPENING', 'OPEN', 'RESOLVED']);
    expect(new Set(store.deliveries.map((d) => d.id)).size).toBe(store.deliveries.length);
    expect(resolved.storeEvents).toMatchObject({ delivered: 3, waiting: [] });
  });
});

it('stops at NEEDS_ATTENTION instead of guessing when another dispute of the order looks the same; a cancel then cancels neither', async () => {
  const { input, order } = await shippableOrder();
  const { svcOrderId } = await order.query(statusQuery);
  const { openId } = h.account;
  // The staff opened one with the reason this request will use ("Item not received").
  const other = await consoleDispute(openId, svcOrderId!, 1);
  const createsBefore = await createCalls();

  const orders = new OrderClient(h.client, h.queues);
  const opened = await openDispute(orders, input.order.orderNumber, {
    message: 'two alike',
    checkEverySeconds: 60,
  });
  const stopped = await disputeReaches(opened.workflowId, 'NEEDS_ATTENTION');
  expect(stopped.error?.step).toBe('createDispute');
  expect(stopped.error?.message).toContain(other);
  expect(stopped.disputeId).toBeUndefined();
  expect((await createCalls()) - createsBefore).toBe(1);

  const handle = h.client.workflow.getHandle(opened.workflowId);
  const cancelled = await handle.executeUpdate(cancelUpdate, { args: [{ reason: 'test over' }] });
  expect(cancelled).toMatchObject({ accepted: true, stage: 'CANCELLED' });
  const { list } = await h.account.client.api.getDisputeList({ orderId: svcOrderId! });
  expect(list.map((x) => x.status)).toEqual(['Processing', 'Processing']);
});

it('an accepted create whose dispute the list still lacks after the lag bound stops at NEEDS_ATTENTION; resumed once it is listed, it adopts it without creating again', async () => {
  const { input, order } = await shippableOrder();
  const { svcOrderId } = await order.query(statusQuery);
  const { openId } = h.account;
  const createsBefore = await createCalls();
  // Longer than dropflow allows the supplier's list to trail (60 s).
  await disputeListLag(openId, 600_000);
  try {
    const orders = new OrderClient(h.client, h.queues);
    const opened = await openDispute(orders, input.order.orderNumber, {
      message: 'listed late',
      checkEverySeconds: 60,
    });
    const handle = h.client.workflow.getHandle(opened.workflowId);
    const stopped = await eventually(
      `dispute ${opened.workflowId} stops for a person`,
      () => handle.query(disputeStatusQuery),
      (s) => s.stage === 'NEEDS_ATTENTION',
      150_000,
    );
    expect(stopped.error?.step).toBe('createDispute');
    expect(stopped.error?.message).toMatch(/shows no dispute of this request/);
    expect(stopped.error?.requestId).toMatch(/\w+/);
    expect(stopped.disputeId).toBeUndefined();

    await disputeListLag(openId, null);
    await handle.executeUpdate(resumeUpdate, { args: [{ by: 'test' }] });
    const open = await disputeReaches(opened.workflowId, 'OPEN');
    const { list } = await h.account.client.api.getDisputeList({ orderId: svcOrderId! });
    expect(list.map((x) => x.id)).toEqual([open.disputeId]);
    expect((await createCalls()) - createsBefore).toBe(1);
    await handle.executeUpdate(cancelUpdate, { args: [{ reason: 'test over' }] });
  } finally {
    await disputeListLag(openId, null);
  }
}, 240_000);
