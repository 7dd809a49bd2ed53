/** The chaos run's supplier calls per order: what scattered batches would inflate. */
import { expect, it } from 'vitest';

import { supplierCalls } from '../../tools/src/chaos/calls.js';
import { emptyStats } from '../../tools/src/sandbox/state.js';

it('counts the mutating calls the supplier took, by endpoint and per order; reads and rate-limit refusals are left out', () => {
  const stats = {
    ...emptyStats(),
    calls: {
      'shopping/order/createOrderV3': 10,
      'shopping/order/addCart': 3,
      'shopping/order/addCartConfirm': 2,
      'shopping/order/saveGenerateParentOrder': 2,
      'shopping/pay/payBalanceV2': 2,
      'shopping/order/uploadWaybillInfo': 3,
      'shopping/order/getOrderDetailBatch': 40,
    },
    rateLimitedCalls: { 'shopping/order/addCart': 1, 'shopping/order/getOrderDetailBatch': 5 },
  };
  const calls = supplierCalls(stats, 10);
  expect(calls.byPath['shopping/order/addCart']).toBe(2);
  expect(calls.byPath['shopping/order/getOrderDetailBatch']).toBeUndefined();
  // 10 creates, 8 checkout calls (two batches), 3 waybills.
  expect(calls.perOrder).toBe(2.1);
  expect(calls.checkoutPerOrder).toBe(0.8);
  expect(supplierCalls(emptyStats(), 0).perOrder).toBe(0);
});
