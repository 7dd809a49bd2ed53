/**
 * `dropflow store test`'s one read-only call per platform, against the store doubles: it says
 * what is wrong — a bad or revoked token or key, a missing scope, a version the platform does not
 * serve — and that a WooCommerce site without the tracking extension gets notes instead.
 */
import { describe, expect, it } from 'vitest';

import { checkStore, type StoreCheck } from '../../src/store/outbound/check.js';
import { SHOPIFY_DEFAULT_SCOPES } from '../../tools/src/storeDoubles/index.js';
import { useStoreDoubles } from './doubles.js';

const doubles = useStoreDoubles();

/** The check failed with exactly one problem, of this kind, saying this. */
function expectProblem(check: StoreCheck, kind: string, says: RegExp): void {
  expect(check.ok).toBe(false);
  expect(check.problems.map((p) => p.kind)).toEqual([kind]);
  expect(check.problems[0]!.message).toMatch(says);
}

describe('checkStore: Shopify', () => {
  it('passes with the token, version and scopes dropflow needs, and says what it saw', async () => {
    const check = await checkStore(doubles().shopifyConnection);
    expect(check).toMatchObject({ ok: true, problems: [] });
    expect(check.facts.join('\n')).toMatch(
      /API version 2025-10[\s\S]*write_merchant_managed_fulfillment_orders/,
    );
  });

  it('a revoked token', async () => {
    const { shopify, shopifyConnection } = doubles();
    shopify.double.revokeToken();
    try {
      expectProblem(
        await checkStore(shopifyConnection),
        'auth',
        /refused the access token \(HTTP 401\)/,
      );
    } finally {
      shopify.double.restoreToken();
    }
  });

  it('a missing scope, named', async () => {
    const { shopify, shopifyConnection } = doubles();
    shopify.double.setScopes(SHOPIFY_DEFAULT_SCOPES.filter((s) => s !== 'write_fulfillments'));
    try {
      expect(await checkStore(shopifyConnection)).toMatchObject({
        ok: false,
        problems: [{ kind: 'scope', message: 'the app lacks the access scope write_fulfillments' }],
      });
    } finally {
      shopify.double.setScopes(SHOPIFY_DEFAULT_SCOPES);
    }
  });

  it('a version Shopify no longer serves', async () => {
    const { shopify, shopifyConnection } = doubles();
    const old = {
      ...shopifyConnection,
      apiVersion: '2023-04',
      apiBaseUrl: `${shopify.url}/admin/api/2023-04`,
    };
    expectProblem(
      await checkStore(old),
      'version',
      /2023-04 is not served .* answered with 2025-01/,
    );
  });
});

describe('checkStore: WooCommerce', () => {
  it('passes with the key, and says the extension is there', async () => {
    const check = await checkStore(doubles().wooConnection);
    expect(check).toMatchObject({ ok: true, problems: [] });
    expect(check.facts.join('\n')).toMatch(/wc-shipment-tracking\/v3/);
  });

  it('a wrong key', async () => {
    const { wooConnection } = doubles();
    const wrong = {
      ...wooConnection,
      secrets: { ...wooConnection.secrets, consumerKey: 'ck_wrong' },
    };
    expectProblem(await checkStore(wrong), 'auth', /Consumer key is invalid/);
  });

  it('a key without read permission', async () => {
    const { woo, wooConnection } = doubles();
    woo.double.permissions = 'write';
    try {
      expectProblem(await checkStore(wooConnection), 'scope', /does not have read permissions/);
    } finally {
      woo.double.permissions = 'read_write';
    }
  });

  it('no Shipment Tracking extension: fine, tracking goes to notes', async () => {
    const { woo, wooConnection } = doubles();
    woo.double.shipmentTracking = false;
    try {
      expect(await checkStore(wooConnection)).toMatchObject({
        ok: true,
        problems: [{ kind: 'no_tracking_extension' }],
      });
    } finally {
      woo.double.shipmentTracking = true;
    }
  });
});
