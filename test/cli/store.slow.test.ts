/**
 * `dropflow store add|list|test|map|remove` as an operator runs them, against the store doubles:
 * secrets from variables, never printed; the webhook URL to register; `test` naming what is wrong
 * (a revoked token, a missing scope); `map` writing mappings from arguments or a CSV; a bad input
 * naming field and rule.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { beforeAll, describe, expect, inject, it } from 'vitest';

import { Client, Connection } from '@temporalio/client';

import { ORDER_WORKFLOW, orderWorkflowId } from '../../src/order/contract.js';
import { storeOrderNumber } from '../../src/store/contract.js';
import { SHOPIFY_DEFAULT_SCOPES } from '../../tools/src/storeDoubles/index.js';
import { runDropflow } from '../support/cli.js';
import { freePort } from '../support/ports.js';
import { useStoreDoubles } from '../store/doubles.js';

const doubles = useStoreDoubles();
const TOKEN = 'shpat_test';
let dataDir: string;
const env = () => ({
  DROPFLOW_DATA_DIR: dataDir,
  SHOP_TOKEN: TOKEN,
  SHOP_SECRET: 'shh',
  WOO_KEY: 'ck_test',
  WOO_SECRET: 'cs_test',
  WOO_HOOK: 'woo-webhook-secret',
});
const temporalFlags = () => [
  '--temporal-address',
  inject('temporalAddress'),
  '--namespace',
  inject('temporalNamespace'),
];
const store = (args: string[]) => runDropflow(['store', ...args], { env: env() });

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'dropflow-store-cli-'));
});

describe('dropflow store', { timeout: 300_000 }, () => {
  it('adds a Shopify shop and a WooCommerce site, prints the webhook URL, lists them without secrets', async () => {
    const { shopify, woo } = doubles();
    const shop = await store([
      'add',
      'shop-1',
      '--platform',
      'shopify',
      '--shop-domain',
      shopify.double.shopDomain,
      '--admin-token-env',
      'SHOP_TOKEN',
      '--client-secret-env',
      'SHOP_SECRET',
      '--api-base-url',
      `${shopify.url}/admin/api/2025-10`,
      '--trigger',
      'orders/paid',
      '--hold-for',
      'PT1H',
      '--base-url',
      'https://hooks.example.com',
    ]);
    expect(shop).toMatchObject({ code: 0, stderr: '' });
    expect(shop.stdout).toContain(
      'register this webhook URL at the store (orders/paid, orders/cancelled, orders/updated): https://hooks.example.com/webhooks/store/shop-1',
    );
    const site = await store([
      'add',
      'woo-1',
      '--platform',
      'woocommerce',
      '--site-url',
      woo.url,
      '--consumer-key-env',
      'WOO_KEY',
      '--consumer-secret-env',
      'WOO_SECRET',
      '--webhook-secret-env',
      'WOO_HOOK',
      '--json',
    ]);
    expect(site.code).toBe(0);
    expect(JSON.parse(site.stdout)).toMatchObject({
      id: 'woo-1',
      platform: 'woocommerce',
      apiBaseUrl: `${woo.url}/wp-json/wc/v3`,
      secretsSet: ['consumerKey', 'consumerSecret', 'webhookSecret'],
    });

    const list = await store(['list', '--json']);
    expect(list.code).toBe(0);
    for (const secret of Object.values(env()).slice(1)) {
      for (const out of [shop, site, list]) expect(out.stdout).not.toContain(secret);
    }
    const listed = JSON.parse(list.stdout) as { stores: { id: string; holdFor?: string }[] };
    expect(listed.stores.map((s) => [s.id, s.holdFor])).toEqual([
      ['shop-1', 'PT1H'],
      ['woo-1', undefined],
    ]);
  });

  it('refuses a bad connection naming each field and rule, and writes nothing', async () => {
    const bad = await store([
      'add',
      'shop-2',
      '--platform',
      'shopify',
      '--shop-domain',
      'my-shop.com',
      '--admin-token-env',
      'SHOP_TOKEN',
      '--api-version',
      '2025-11',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('shopDomain: must be <shop>.myshopify.com');
    expect(bad.stderr).toContain('apiVersion: must be a Shopify API version such as 2025-10');
    expect(bad.stderr).toContain('secrets.clientSecret: is required');
    const list = JSON.parse((await store(['list', '--json'])).stdout) as { stores: unknown[] };
    expect(list.stores).toHaveLength(2);
  });

  it('test: ok against the doubles; a revoked token and a missing scope are named', async () => {
    const { shopify } = doubles();
    const ok = await store(['test', 'shop-1']);
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(ok.stdout).toMatch(/store shop-1: ok[\s\S]*API version 2025-10/);
    expect((await store(['test', 'woo-1'])).code).toBe(0);

    shopify.double.revokeToken();
    try {
      const revoked = await store(['test', 'shop-1', '--json']);
      expect(revoked.code).toBe(1);
      expect(JSON.parse(revoked.stdout)).toMatchObject({ ok: false, problems: [{ kind: 'auth' }] });
    } finally {
      shopify.double.restoreToken();
    }
    shopify.double.setScopes(SHOPIFY_DEFAULT_SCOPES.filter((s) => s !== 'write_fulfillments'));
    try {
      const scope = await store(['test', 'shop-1']);
      expect(scope.code).toBe(1);
      expect(scope.stdout).toContain('scope: the app lacks the access scope write_fulfillments');
    } finally {
      shopify.double.setScopes(SHOPIFY_DEFAULT_SCOPES);
    }
    expect((await store(['test', 'nope'])).stderr).toContain('id: no store "nope" in the registry');
  });

  it('map: one SKU from arguments, many from a CSV; a bad line is named and nothing is written', async () => {
    const one = await store(['map', 'shop-1', 'MUG-RED', 'P0002-V1', ...temporalFlags()]);
    expect(one).toMatchObject({ code: 0, stderr: '' });
    expect(one.stdout).toContain('store shop-1: 1 SKU mapped');
    expect(one.stdout).toContain('0 waiting orders told to look again');

    const csv = join(dataDir, 'map.csv');
    await writeFile(csv, 'sku,vid\nTEE-M,P0003-V2\n"TEE-L",P0003-V3\n');
    const many = await store(['map', 'shop-1', '--csv', csv, '--json', ...temporalFlags()]);
    expect(many.code).toBe(0);
    expect(JSON.parse(many.stdout)).toMatchObject({
      mapped: 2,
      released: { signalled: [], failed: [] },
    });

    await writeFile(csv, 'sku,vid\nTEE-S\n');
    const bad = await store(['map', 'shop-1', '--csv', csv, ...temporalFlags()]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('line 2: must be sku,vid');

    const listed = JSON.parse((await store(['list', '--json'])).stdout) as {
      stores: { id: string; mappings: number }[];
    };
    expect(listed.stores.find((s) => s.id === 'shop-1')?.mappings).toBe(3);
  });

  it('remove: refused while an order of the store is in flight or when that cannot be told, unless --force', async () => {
    const connection = await Connection.connect({ address: inject('temporalAddress') });
    const client = new Client({ connection, namespace: inject('temporalNamespace') });
    // An order of shop-1 in flight: its workflow runs (no worker polls its queue here).
    const inFlight = await client.workflow.start(ORDER_WORKFLOW, {
      workflowId: orderWorkflowId(storeOrderNumber('shop-1', String(Date.now()))),
      taskQueue: `store-remove-${process.pid}`,
      args: [],
    });
    try {
      const refused = await store(['remove', 'shop-1', ...temporalFlags()]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(
        `store "shop-1" has 1 order in flight (${inFlight.workflowId})`,
      );
      expect(refused.stderr).toContain('--force');
      const unsure = await store([
        'remove',
        'shop-1',
        '--temporal-address',
        `127.0.0.1:${await freePort()}`,
      ]);
      expect(unsure.code).toBe(2);
      expect(unsure.stderr).toContain('cannot tell whether orders of store "shop-1" are in flight');
      const listed = JSON.parse((await store(['list', '--json'])).stdout) as {
        stores: { id: string }[];
      };
      expect(listed.stores.map((s) => s.id)).toEqual(['shop-1', 'woo-1']);
      expect(await store(['remove', 'shop-1', '--force', ...temporalFlags()])).toMatchObject({
        code: 0,
        stderr: '',
      });
    } finally {
      await inFlight.terminate('test done');
      await connection.close();
    }
  });

  it('remove: the connection and its mappings go; an unknown one is named', async () => {
    expect(await store(['remove', 'woo-1', ...temporalFlags()])).toMatchObject({
      code: 0,
      stderr: '',
    });
    const listed = JSON.parse((await store(['list', '--json'])).stdout) as {
      stores: { id: string }[];
    };
    expect(listed.stores.map((s) => s.id)).toEqual([]);
    const again = await store(['remove', 'shop-1', ...temporalFlags()]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('id: no store "shop-1" in the registry');
  });
});
