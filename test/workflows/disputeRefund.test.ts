/**
 * The dispute area end to end on the real dev server and sandbox: one dispute per request, followed
 * to its refund, and the open order hears how it ended. The dispute's failure cases (lost answers,
 * lagging lists, look-alikes, long follow-ups) are in disputeOrder.slow.test.ts.
 */
import { expect, it } from 'vitest';
import { businessDisputeIdFor, openDispute } from '../../src/client/disputeClient.js';
import { OrderClient } from '../../src/client/orderClient.js';
import { Stage, statusQuery } from '../../src/order/contract.js';
import type { DisputeStatus } from '../../src/dispute/contract.js';
import { disputeReaches as disputeAt, shippableOrder as paidOrder } from '../support/disputes.js';
import { reachStage, useOrderHarness } from '../support/orders.js';
import { sandboxUrl } from '../support/sandbox.js';

const h = useOrderHarness('dispute-refund');

const disputeReaches = (workflowId: string, stage: DisputeStatus['stage']) =>
  disputeAt(h, workflowId, stage);
const shippableOrder = () => paidOrder(h);

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
