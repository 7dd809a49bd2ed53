/**
 * A payment whose answer is lost, for an order the supplier splits at that payment (ORDERSPLIT:
 * the order is no longer listed, its children carry its order number under new codes). The
 * look-up must read the paid children as the payment, never the vanished order as unpaid: the
 * order is paid exactly once, follows both children and completes.
 */
import { expect, it } from 'vitest';
import {
  approvePaymentUpdate,
  ParcelStage,
  Stage,
  statusQuery,
  type OrderStatus,
} from '../../src/order/contract.js';
import { control } from '../sandbox/controls.js';
import { eventually } from '../support/eventually.js';
import {
  reachStage,
  startOrder,
  sweepUntil,
  useOrderHarness,
  validOrder,
} from '../support/orders.js';
import { accountStats, injectFault, takenCalls } from '../support/sandbox.js';
import { advance, usOrder } from '../supplier/orderHelpers.js';
import { noted, stagesOf } from './reconcile-support.js';

const PAY = 'shopping/pay/payBalanceV2';

const LINES = [
  { vid: 'P0001-V1', quantity: 2, storeLineItemId: 'line-a' },
  { vid: 'P0002-V1', quantity: 1, storeLineItemId: 'line-b' },
];

const h = useOrderHarness('reconcile-split-pay');

it('an order split at its payment, whose payment answer is lost, is paid once and follows its children to COMPLETED', async () => {
  const { openId } = h.account;
  const input = validOrder({
    ...usOrder({ products: LINES }),
    // Held at approval: the split is asked for before the payment, so the supplier splits at it.
    fulfillment: { flow: 'B', supplierLagSeconds: 3, payment: { policy: 'approval' } },
  });
  const handle = await startOrder(h, input);
  const held = await reachStage(handle, Stage.AWAITING_APPROVAL, (s) => s.waitingFor !== undefined);
  const svcOrderId = held.svcOrderId!;
  const asked = await control<{ splitAtPayment?: number[][] }>(
    'POST',
    `orders/${svcOrderId}/split`,
    { parts: [[0], [1]] },
  );
  expect(asked.status).toBe(200);
  expect(asked.body.splitAtPayment).toEqual([[0], [1]]);

  const before = await accountStats(openId);
  await injectFault({ path: PAY, kind: 'commitThenDrop', openId });
  await handle.executeUpdate(approvePaymentUpdate, { args: [{ by: 'test' }] });

  const paid = await reachStage(handle, Stage.AWAITING_SHIPMENT);
  expect(paid.outcomeUnknown).toBeUndefined();
  expect(noted(paid, new RegExp(`^paid \\(the supplier split ${svcOrderId} into `))).toBe(true);
  expect(stagesOf(paid)).not.toContain(Stage.NEEDS_ATTENTION);
  expect(stagesOf(paid)).not.toContain(Stage.AWAITING_FUNDS);

  // One payment sent, and it acted; none sent again.
  const after = await accountStats(openId);
  expect(takenCalls(after, PAY) - takenCalls(before, PAY)).toBe(1);
  expect(after.payments - before.payments).toBe(1);
  expect(after.repeatedPaymentsRefused - before.repeatedPaymentsRefused).toBe(0);

  // The order follows both children, each by its own code.
  const split = await eventually(
    'the order split into its children',
    () => handle.query(statusQuery),
    (s) => (s.parcels?.length ?? 0) === 3,
  );
  const children = split
    .parcels!.filter((p) => p.stage !== ParcelStage.SPLIT)
    .map((p) => p.code)
    .sort();
  expect(children).toEqual([`${svcOrderId}-1`, `${svcOrderId}-2`]);
  for (const code of children) expect((await advance(code, 'SHIPPED')).status).toBe(200);
  await sweepUntil(
    h,
    handle,
    'both parcels shipped',
    (s) => (s.parcels ?? []).filter((p) => p.stage === ParcelStage.SHIPPED).length === 2,
  );
  for (const code of children) expect((await advance(code, 'DELIVERED')).status).toBe(200);
  await sweepUntil(h, handle, 'completed', (s) => s.stage === Stage.COMPLETED);
  const done = (await handle.result()) as OrderStatus;
  expect(done.parcels!.filter((p) => p.stage === ParcelStage.DELIVERED)).toHaveLength(2);

  const end = await accountStats(openId);
  expect(takenCalls(end, PAY) - takenCalls(before, PAY)).toBe(1);
  expect(end.payments - before.payments).toBe(1);
});
