/**
 * Disputes: disputeProducts → disputeConfirmInfo → create → follow the result, once per request;
 * the open order workflow hears how it ends.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { businessDisputeIdFor, openDispute } from '../../src/client/disputeClient.js';
import {
  cancelUpdate,
  disputeStatusQuery,
  resumeUpdate,
  Stage,
  statusQuery,
  type DisputeStatus,
} from '../../src/client/definitions.js';
import { OrderClient } from '../../src/client/orderClient.js';
import { eventually } from '../support/eventually.js';
import { accountStats, clearFaults, injectFault, sandboxUrl } from '../support/sandbox.js';
import {
  orderHarness,
  reachStage,
  startOrder,
  validOrder,
  type OrderHarness,
} from '../support/orders.js';
import { usOrder } from '../supplier/orderHelpers.js';

let h: OrderHarness;
beforeAll(async () => {
  h = await orderHarness('disputes');
});
afterAll(() => h.close());

function disputeReaches(workflowId: string, stage: DisputeStatus['stage']): Promise<DisputeStatus> {
  const handle = h.client.workflow.getHandle(workflowId);
  return eventually(
    `dispute ${workflowId} at ${stage}`,
    () => handle.query(disputeStatusQuery),
    (s) => {
      if (s.stage === 'NEEDS_ATTENTION' && stage !== 'NEEDS_ATTENTION')
        throw new Error(`dispute needs attention: ${JSON.stringify(s.error)}`);
      return s.stage === stage;
    },
    60_000,
  );
}

/** An order of this file's account at AWAITING_SHIPMENT (paid: it may be disputed). */
async function shippableOrder() {
  const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B' } });
  const order = await startOrder(h, input);
  await reachStage(order, Stage.AWAITING_SHIPMENT);
  return { input, order };
}

const createCalls = async () =>
  (await accountStats(h.account.openId)).calls['disputes/create'] ?? 0;

it('opens one dispute per request, follows it to a refund, and tells the open order', async () => {
  const { input, order } = await shippableOrder();
  const before = await h.account.client.api.getBalance({});

  const orders = new OrderClient(h.client, h.queues);
  const request = { message: 'arrived broken', checkEverySeconds: 1 };
  const opened = await openDispute(orders, input.order.orderNumber, request);
  expect(opened.outcome).toBe('started');
  expect(opened.businessDisputeId).toBe(businessDisputeIdFor(input.order.orderNumber, request));
  const open = await disputeReaches(opened.workflowId, 'OPEN');
  expect(open.disputeId).toMatch(/\w+/);
  expect(open.amount).toBeGreaterThan(0);

  // Asking again for the same dispute finds the first one.
  expect((await openDispute(orders, input.order.orderNumber, request)).outcome).toBe('existing');
  const { svcOrderId } = await order.query(statusQuery);
  const listed = await h.account.client.api.getDisputeList({ orderId: svcOrderId! });
  expect(listed.list).toHaveLength(1);

  const res = await fetch(`${sandboxUrl()}/__sandbox/disputes/${open.disputeId!}/resolve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ finallyDeal: 1 }),
  });
  expect(res.status).toBe(200);
  const resolved = (await h.client.workflow.getHandle(opened.workflowId).result()) as DisputeStatus;
  expect(resolved.stage).toBe('RESOLVED');
  expect(resolved.outcome?.result).toBe('refund');
  expect(resolved.outcome?.money).toBeCloseTo(open.amount!, 2);
  expect((await h.account.client.api.getBalance({})).amount).toBeCloseTo(
    before.amount + open.amount!,
    2,
  );

  const heard = await reachStage(
    order,
    Stage.AWAITING_SHIPMENT,
    (s) => s.dispute?.stage === 'RESOLVED',
  );
  expect(heard.dispute?.outcome?.result).toBe('refund');
});

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
