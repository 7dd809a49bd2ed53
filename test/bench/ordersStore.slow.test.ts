/**
 * `dropflow bench orders --store shopify` as a person runs it, small: three orders per phase placed
 * in the Shopify double, arriving at the bench's gateway as the shop's signed webhooks, their
 * tracking written back to the shop. The store's figures must exist and agree with each other
 * (one fulfillment per order, every fulfillment matched to a supplier shipment); speed belongs to
 * the bench itself.
 */
import { expect, it } from 'vitest';

import type { PhaseResult } from '../../tools/src/bench/orderPhase.js';
import { lastJson, runBench } from './runBench.js';

const ORDERS = 3;

it(
  'reports the store calls per order and supplier tracking → store fulfillment, one fulfillment per order',
  async () => {
    const run = await runBench('orders', [
      '--store',
      'shopify',
      '--orders',
      String(ORDERS),
      '--rps',
      '4',
      '--tracking-seconds',
      '3',
      '--json',
    ]);
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.code, output).toBe(0);
    expect(run.stdout, output).toMatch(/placed at once in a shopify store double/);
    expect(run.stdout, output).toMatch(/store calls per order/);
    expect(run.stdout, output).toMatch(/supplier tracking → store p99/);

    const result = lastJson(run) as Record<'off' | 'on', PhaseResult>;
    for (const phase of ['off', 'on'] as const) {
      const r = result[phase];
      expect(r, phase).toMatchObject({ orders: ORDERS, completed: ORDERS });
      const store = r.store!;
      expect(store, phase).toMatchObject({
        platform: 'shopify',
        // Shopify sends orders/create and orders/paid for a paid order; the gateway takes both.
        webhooksSent: 2 * ORDERS,
        webhooksNotAccepted: 0,
        ordersFulfilled: ORDERS,
        fulfillments: ORDERS,
        matched: ORDERS,
      });
      expect(store.callsPerOrder, phase).toBeGreaterThan(0);
      expect(store.callsByKind['fulfillmentCreate'], phase).toBe(ORDERS);
      expect(store.trackingToFulfillmentP50Ms, phase).toBeGreaterThanOrEqual(0);
      expect(store.trackingToFulfillmentP99Ms, phase).toBeGreaterThanOrEqual(
        store.trackingToFulfillmentP50Ms!,
      );
    }
  },
  10 * 60_000,
);
