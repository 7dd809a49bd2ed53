/**
 * A worker stopped in the middle of an order and started again: the order continues where it
 * stood, and nothing is created or paid twice.
 */
import { expect, it } from 'vitest';
import { Stage } from '../../src/order/contract.js';
import { accountStats, takenCalls } from '../support/sandbox.js';
import { reachStage, startOrder, validOrder, useOrderHarness } from '../support/orders.js';
import { usOrder } from '../supplier/orderHelpers.js';
import { batchSizeOnly, NEVER } from '../support/checkoutSettings.js';

// The order waits in its account's checkout until the test lets the batch go.
const h = useOrderHarness('restart', undefined, {
  checkout: { quietMs: NEVER, maxWaitMs: NEVER, maxBatch: 2 },
});

it('continues after the workers stop mid-flow and start again', async () => {
  const handle = await startOrder(h, validOrder({ ...usOrder(), fulfillment: { flow: 'B' } }));
  await reachStage(handle, Stage.CREATED, (s) => /checkout batch/.test(s.waitingFor ?? ''));
  await h.stopWorkers();
  const stalled = (await accountStats(h.account.openId)).calls;

  await h.restartWorkers();
  // The coordinator kept the order across the restart: a batch of one lets it go.
  await batchSizeOnly(h)({ maxBatch: 1 });
  const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
  expect(waiting.svcOrderId).toMatch(/\w+/);
  const stats = await accountStats(h.account.openId);
  expect(takenCalls(stats, 'shopping/order/createOrderV3')).toBe(1);
  expect(takenCalls(stats, 'shopping/pay/payBalanceV2')).toBe(1);
  expect(stalled['shopping/pay/payBalanceV2']).toBeUndefined();
  expect((await accountStats(h.account.openId)).payments).toBe(1);
});
