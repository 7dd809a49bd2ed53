/**
 * Store connections in the account registry's file (docs/store-shopify.md, docs/store-woocommerce.md):
 * `stores: [...]` beside `accounts`, each belonging to one supplier account (the default one
 * included), and `skuMappings: [...]`, the explicit SKU → supplier variant of each store. Secrets are
 * sealed like the accounts' (registryFile.ts SecretBox). This file holds their schema, the rules
 * across records, and how a stored connection opens into a `Store`.
 */
import { z } from 'zod';

import { isOutboundUrl, OUTBOUND_URL_RULE } from '../net/outboundUrl.js';
import { durationMs, IsoDuration } from '../terms/sla.js';
import {
  ACCOUNT_ID,
  ACCOUNT_ID_RULE,
  DEFAULT_SHOPIFY_API_VERSION,
  OrderTrigger,
  SHOPIFY_API_VERSION,
  STORE_CONNECTION_ID,
  STORE_CONNECTION_ID_RULE,
  StorePlatform,
  type SkuMapping,
  type Store,
  type StoreConnection,
} from './contract.js';
import { StoredSecret } from './registrySecrets.js';

const outboundUrl = z.string().refine(isOutboundUrl, { error: OUTBOUND_URL_RULE });
/** `<name>.myshopify.com`: the shop's permanent domain (not its custom one). */
export const SHOP_DOMAIN = /^[a-z0-9][a-z0-9-]*\.myshopify\.com$/;

const StoredStoreBase = {
  id: z.string().regex(STORE_CONNECTION_ID, { error: STORE_CONNECTION_ID_RULE }),
  account: z.string().regex(ACCOUNT_ID, { error: ACCOUNT_ID_RULE }),
  apiBaseUrl: outboundUrl.optional(),
  holdFor: IsoDuration.optional(),
  notifyCustomer: z.boolean().default(true),
  fromCountryCode: z
    .string()
    .regex(/^[A-Z]{2}$/, { error: 'must be a country code such as CN' })
    .optional(),
};

const StoredShopify = z.strictObject({
  ...StoredStoreBase,
  platform: z.literal(StorePlatform.Shopify),
  shopDomain: z.string().regex(SHOP_DOMAIN, { error: 'must be <shop>.myshopify.com' }),
  apiVersion: z
    .string()
    .regex(SHOPIFY_API_VERSION, { error: 'must be a Shopify API version such as 2025-10' })
    .default(DEFAULT_SHOPIFY_API_VERSION),
  orderTrigger: z
    .enum([OrderTrigger.Created, OrderTrigger.Paid], {
      error: `must be ${OrderTrigger.Created} or ${OrderTrigger.Paid}`,
    })
    .default(OrderTrigger.Created),
  secrets: z.strictObject({ adminAccessToken: StoredSecret, clientSecret: StoredSecret }),
});

/** The shortest interval of a store's order sweep: each sweep costs the site a request or more. */
export const MIN_SWEEP_EVERY_MS = 60_000;

const StoredWooCommerce = z.strictObject({
  ...StoredStoreBase,
  platform: z.literal(StorePlatform.WooCommerce),
  siteUrl: outboundUrl,
  sweepEvery: IsoDuration.refine((d) => (durationMs(d) ?? 0) >= MIN_SWEEP_EVERY_MS, {
    error: 'must be at least one minute (PT1M)',
  }).optional(),
  secrets: z.strictObject({
    consumerKey: StoredSecret,
    consumerSecret: StoredSecret,
    webhookSecret: StoredSecret,
  }),
});

export const StoredStore = z.discriminatedUnion('platform', [StoredShopify, StoredWooCommerce], {
  error: `platform must be one of ${Object.values(StorePlatform).join(', ')}`,
});
export type StoredStore = z.infer<typeof StoredStore>;

export const StoredSkuMapping = z.strictObject({
  connection: z.string().regex(STORE_CONNECTION_ID, { error: STORE_CONNECTION_ID_RULE }),
  sku: z.string().min(1).max(200),
  vid: z.string().min(1).max(50),
});

/** The Admin/REST base URL a connection calls when none is set. */
export function derivedApiBaseUrl(s: StoredStore): string {
  if (s.platform === StorePlatform.Shopify) {
    return `https://${s.shopDomain}/admin/api/${s.apiVersion}`;
  }
  return `${s.siteUrl.replace(/\/+$/, '')}/wp-json/wc/v3`;
}

/** What a stored connection shows, secrets aside. */
export function connectionOf(s: StoredStore): StoreConnection {
  const base: StoreConnection = {
    id: s.id,
    account: s.account,
    platform: s.platform,
    apiBaseUrl: s.apiBaseUrl ?? derivedApiBaseUrl(s),
    orderTrigger: s.platform === StorePlatform.Shopify ? s.orderTrigger : OrderTrigger.Paid,
    notifyCustomer: s.notifyCustomer,
    ...(s.holdFor !== undefined && { holdFor: s.holdFor }),
    ...(s.fromCountryCode !== undefined && { fromCountryCode: s.fromCountryCode }),
  };
  return s.platform === StorePlatform.Shopify
    ? { ...base, shopDomain: s.shopDomain, apiVersion: s.apiVersion }
    : {
        ...base,
        siteUrl: s.siteUrl,
        ...(s.sweepEvery !== undefined && { sweepEvery: s.sweepEvery }),
      };
}

type Open = (stored: StoredSecret, field: string) => Promise<string>;

/** A stored connection with its secrets in clear. */
export async function openStore(s: StoredStore, open: Open, at: string): Promise<Store> {
  const connection = connectionOf(s);
  if (s.platform === StorePlatform.Shopify) {
    return {
      ...connection,
      platform: s.platform,
      secrets: {
        adminAccessToken: await open(s.secrets.adminAccessToken, `${at}.secrets.adminAccessToken`),
        clientSecret: await open(s.secrets.clientSecret, `${at}.secrets.clientSecret`),
      },
    };
  }
  return {
    ...connection,
    platform: s.platform,
    secrets: {
      consumerKey: await open(s.secrets.consumerKey, `${at}.secrets.consumerKey`),
      consumerSecret: await open(s.secrets.consumerSecret, `${at}.secrets.consumerSecret`),
      webhookSecret: await open(s.secrets.webhookSecret, `${at}.secrets.webhookSecret`),
    },
  };
}

interface Issue {
  path: (string | number)[];
  message: string;
}

/** The rules across records: unique ids, a known account, one mapping per store and SKU. */
export function storeIssues(
  accounts: readonly { id: string }[],
  defaultAccount: string,
  stores: readonly StoredStore[],
  mappings: readonly SkuMapping[],
): Issue[] {
  const issues: Issue[] = [];
  const known = new Set([defaultAccount, ...accounts.map((a) => a.id)]);
  const ids = new Set<string>();
  stores.forEach((s, i) => {
    if (ids.has(s.id)) issues.push({ path: ['stores', i, 'id'], message: 'is listed twice' });
    ids.add(s.id);
    if (!known.has(s.account)) {
      issues.push({ path: ['stores', i, 'account'], message: `no account "${s.account}"` });
    }
  });
  const keys = new Set<string>();
  mappings.forEach((m, i) => {
    if (!ids.has(m.connection)) {
      issues.push({
        path: ['skuMappings', i, 'connection'],
        message: `no store "${m.connection}"`,
      });
    }
    const key = `${m.connection}\u0000${m.sku}`;
    if (keys.has(key)) issues.push({ path: ['skuMappings', i, 'sku'], message: 'is mapped twice' });
    keys.add(key);
  });
  return issues;
}
