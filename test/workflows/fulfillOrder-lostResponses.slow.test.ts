/**
 * Lost responses and an unwell supplier: the order still gets through, and nothing is created or
 * paid twice. Faults are injected at the sandbox for this file's account only.
 */
import { expect, it } from 'vitest';
import { Stage } from '../../src/order/contract.js';
import { accountStats, injectFault, takenCalls } from '../support/sandbox.js';
import { reachStage, startOrder, validOrder, useOrderHarness } from '../support/orders.js';
import { usOrder } from '../supplier/orderHelpers.js';

const h = useOrderHarness('lost');

it('a create and a payment whose answers are lost are found, not repeated; busy answers are retried', async () => {
  const { openId } = h.account;
  // The supplier acts, then the connection drops: the workflow cannot know it worked.
  await injectFault({ path: 'shopping/order/createOrderV3', kind: 'commitThenDrop', openId });
  await injectFault({ path: 'shopping/pay/payBalanceV2', kind: 'commitThenDrop', openId });
  await injectFault({ path: 'shopping/order/addCart', kind: 'busy', openId });
  await injectFault({ path: 'shopping/order/addCartConfirm', kind: 'http5xx', openId });

  // The sandbox's view does not lag here: a short lag window lets proven-absent calls go again.
  const handle = await startOrder(
    h,
    validOrder({ ...usOrder(), fulfillment: { flow: 'B', supplierLagSeconds: 2 } }),
  );
  const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
  expect(
    waiting.timeline.some((t) =>
      /found at the supplier after an unanswered create/.test(t.note ?? ''),
    ),
  ).toBe(true);

  const stats = await accountStats(openId);
  const sent = (path: string) => takenCalls(stats, path);
  expect(stats.ordersCreated).toBe(1);
  expect(stats.duplicateCreatesRefused).toBe(0);
  expect(sent('shopping/order/createOrderV3')).toBe(1);
  expect(stats.payments).toBe(1);
  expect(stats.repeatedPaymentsRefused).toBe(0);
  expect(sent('shopping/pay/payBalanceV2')).toBe(1);
  // The busy cart step was simply tried again; the unanswered confirmation was looked up, found
  // not done, and only then sent again.
  expect(sent('shopping/order/addCart')).toBe(2);
  expect(sent('shopping/order/addCartConfirm')).toBe(2);
  expect(stats.faultsInjected).toBe(4);
});
