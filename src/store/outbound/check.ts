/**
 * `dropflow store test`'s check of a connection: one read-only call per platform that says what
 * is wrong — a bad token or key, a missing scope or permission, a version the platform does not
 * serve, a missing Shipment Tracking extension (then tracking goes into order notes).
 */
import { StoreApiError, StoreFailure } from '../apiError.js';
import type { Store } from '../../accounts/contract.js';
import { ShopifyAdmin } from '../shopify/admin.js';
import { CONNECTION_CHECK, type ConnectionCheck } from '../shopify/queries.js';
import { WooRest } from '../woocommerce/rest.js';

/** The Shopify access scopes dropflow needs (any one of each group). */
export const SHOPIFY_SCOPES: readonly (readonly string[])[] = [
  ['read_orders', 'write_orders'],
  ['write_orders'],
  ['write_merchant_managed_fulfillment_orders', 'write_assigned_fulfillment_orders'],
  ['write_fulfillments'],
];

export interface StoreProblem {
  kind: StoreFailure | 'no_tracking_extension';
  message: string;
}

export interface StoreCheck {
  ok: boolean;
  /** What the store said about itself: shop name, scopes, namespaces. */
  facts: string[];
  problems: StoreProblem[];
}

export async function checkStore(conn: Store, timeoutMs = 10_000): Promise<StoreCheck> {
  try {
    return conn.platform === 'shopify'
      ? await checkShopify(conn, timeoutMs)
      : await checkWoo(conn, timeoutMs);
  } catch (err) {
    if (!(err instanceof StoreApiError)) throw err;
    return { ok: false, facts: [], problems: [{ kind: err.kind, message: err.message }] };
  }
}

async function checkShopify(
  conn: Extract<Store, { platform: 'shopify' }>,
  timeoutMs: number,
): Promise<StoreCheck> {
  const version = conn.apiVersion ?? '2025-10';
  const admin = new ShopifyAdmin(
    {
      apiBaseUrl: conn.apiBaseUrl,
      apiVersion: version,
      adminAccessToken: conn.secrets.adminAccessToken,
    },
    { timeoutMs },
  );
  const { data, servedVersion } = await admin.graphql<ConnectionCheck>(CONNECTION_CHECK);
  const scopes = new Set(data.currentAppInstallation.accessScopes.map((s) => s.handle));
  const problems: StoreProblem[] = [];
  if (servedVersion !== undefined && servedVersion !== version) {
    problems.push({
      kind: StoreFailure.Version,
      message: `API version ${version} is not served by Shopify (it answered with ${servedVersion}): choose a supported version`,
    });
  }
  for (const group of SHOPIFY_SCOPES) {
    if (group.some((s) => scopes.has(s))) continue;
    problems.push({
      kind: StoreFailure.Scope,
      message: `the app lacks the access scope ${group.join(' or ')}`,
    });
  }
  return {
    ok: problems.length === 0,
    facts: [
      `shop ${data.shop.myshopifyDomain} (${data.shop.name})`,
      `API version ${servedVersion ?? version}`,
      `scopes ${[...scopes].sort().join(', ')}`,
    ],
    problems,
  };
}

async function checkWoo(
  conn: Extract<Store, { platform: 'woocommerce' }>,
  timeoutMs: number,
): Promise<StoreCheck> {
  const rest = new WooRest(
    {
      apiBaseUrl: conn.apiBaseUrl,
      consumerKey: conn.secrets.consumerKey,
      consumerSecret: conn.secrets.consumerSecret,
    },
    { timeoutMs },
  );
  const index = await rest.get<{ name?: string; namespaces?: string[] }>('/');
  const namespaces = index.namespaces ?? [];
  const problems: StoreProblem[] = [];
  if (!namespaces.includes('wc/v3')) {
    problems.push({
      kind: StoreFailure.Version,
      message:
        'the site has no WooCommerce REST API v3 (wc/v3): is WooCommerce active, version 3.5 or later?',
    });
    return { ok: false, facts: [`site ${index.name ?? rest.host}`], problems };
  }
  // The key, read permission included: one order at most.
  await rest.get<unknown[]>('/wc/v3/orders?per_page=1');
  if (!namespaces.includes('wc-shipment-tracking/v3')) {
    problems.push({
      kind: 'no_tracking_extension',
      message:
        'no Shipment Tracking extension: tracking goes into customer order notes (not an error)',
    });
  }
  return {
    ok: problems.every((p) => p.kind === 'no_tracking_extension'),
    facts: [
      `site ${index.name ?? rest.host}`,
      `namespaces ${namespaces.filter((n) => n.startsWith('wc')).join(', ')}`,
      'write permission: not checked (WooCommerce does not show it without writing)',
    ],
    problems,
  };
}
