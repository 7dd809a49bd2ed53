/**
 * Disputes: disputeProducts → disputeConfirmInfo → create → follow the result, once per request;
 * the open order workflow hears how it ends.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { businessDisputeIdFor, openDispute } from '../../src/client/disputeClient.js';
import {
  disputeStatusQuery,
  Stage,
  statusQuery,
  type DisputeStatus,
} from '../../src/client/definitions.js';
import { OrderClient } from '../../src/client/orderClient.js';
import { sandboxUrl } from '../support/sandbox.js';
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

async function disputeReaches(
  workflowId: string,
  stage: DisputeStatus['stage'],
): Promise<DisputeStatus> {
  const handle = h.client.workflow.getHandle(workflowId);
  const until = Date.now() + 60_000;
  for (;;) {
    const s = await handle.query(disputeStatusQuery);
    if (s.stage === stage) return s;
    if (s.stage === 'NEEDS_ATTENTION')
      throw new Error(`dispute needs attention: ${JSON.stringify(s.error)}`);
    if (Date.now() > until) throw new Error(`dispute still ${s.stage}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

it('opens one dispute per request, follows it to a refund, and tells the open order', async () => {
  const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B' } });
  const order = await startOrder(h, input);
  await reachStage(order, Stage.AWAITING_SHIPMENT);
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
