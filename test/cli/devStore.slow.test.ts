/**
 * `npm start` shows the whole store loop: `dropflow dev` starts a Shopify double on loopback,
 * connected as store `dev-shop`; the order its banner tells how to place is fulfilled through the
 * dev's sandbox, and its tracking is written back to the double as a fulfillment.
 */
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DEV_STORE_ID } from '../../src/cli/devStore.js';
import { storeOrderNumber } from '../../src/store/contract.js';
import {
  placeShopifyOrder,
  shopifyDoubleOrder,
  type NewShopOrder,
} from '../../tools/src/storeDoubles/index.js';
import { runDropflow } from '../support/cli.js';
import { startDev, type RunningDev } from '../support/dev.js';
import { eventually } from '../support/eventually.js';
import { freePort } from '../support/ports.js';

describe('dropflow dev with its store double', () => {
  let dir: string;
  let dev: RunningDev;
  let storeUrl: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dropflow-dev-store-'));
    const [temporal, ui, gateway, sandbox, store] = await Promise.all(
      [0, 1, 2, 3, 4].map(() => freePort()),
    );
    storeUrl = `http://127.0.0.1:${store}`;
    dev = await startDev(dir, [
      ...['--temporal-port', String(temporal), '--ui-port', String(ui)],
      ...['--gateway-port', String(gateway), '--sandbox-port', String(sandbox)],
      ...['--store-port', String(store), '--metrics-port', '0'],
      ...['--lifecycle-ms', '500', '--tracking-every', '2'],
    ]);
  });

  afterAll(async () => {
    await dev.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('says where the double is and how to place an order on it, and keeps its secrets', async () => {
    const out = dev.stdout();
    expect(out).toContain(`Store           Shopify double ${storeUrl}  (store ${DEV_STORE_ID}`);
    expect(out).toContain(
      `curl -s -X POST ${storeUrl}/__shopify/orders -H 'content-type: application/json' --data @examples/store-order-shopify.json`,
    );
    expect(out).not.toMatch(/shpat_/);
    const listed = await runDropflow(['store', 'list', '--json'], {
      env: { DROPFLOW_DATA_DIR: dir },
    });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject({
      stores: [
        {
          id: DEV_STORE_ID,
          account: 'default',
          apiBaseUrl: `${storeUrl}/admin/api/2025-10`,
          secretsSet: ['adminAccessToken', 'clientSecret'],
        },
      ],
    });
  });

  it('a store order placed on the double comes back to it with its tracking', async () => {
    const example = JSON.parse(
      await readFile('examples/store-order-shopify.json', 'utf8'),
    ) as NewShopOrder;
    const order = await placeShopifyOrder(storeUrl, example);
    const shipped = await eventually(
      `${storeOrderNumber(DEV_STORE_ID, String(order.id))}: tracking in the store`,
      () => shopifyDoubleOrder(storeUrl, order.id),
      (o) => (o?.fulfillments.length ?? 0) > 0,
      180_000,
    );
    const [fulfillment, ...more] = shipped!.fulfillments;
    expect(more).toEqual([]);
    expect(fulfillment!.trackingInfo[0]?.number).toMatch(/\w+/);
    expect(fulfillment!.lineItems.map((l) => l.quantity).sort()).toEqual([1, 2]);
  });
});
