/**
 * Supplier accounts as data (issue 17): one deployment of workers serves many supplier accounts.
 * An account is a record of the registry, not a queue set or a deployment; so is a store
 * connection, which belongs to one account. This contract is what every other area imports: the
 * id rule, the rate tiers, the records (accounts and store connections), and the directories that
 * workers, the gateway and the CLI read. The registry's store is in src/accounts/registry*.ts.
 * Sandbox-safe: no I/O, type imports only.
 */
import type { MarginRule } from '../terms/margin.js';
import type { SlaDurations } from '../terms/sla.js';

/** The account of a deployment's own environment (SUPPLIER_API_KEY, or the local sandbox). */
export const DEFAULT_ACCOUNT = 'default';

/** Lower-case letters, digits and `-`, 1 to 32, starting with a letter or digit. */
export const ACCOUNT_ID = /^[a-z0-9][a-z0-9-]{0,31}$/;
export const ACCOUNT_ID_RULE =
  'must be 1 to 32 lower-case letters, digits or "-", starting with a letter or digit';

export function isAccountId(value: unknown): value is string {
  return typeof value === 'string' && ACCOUNT_ID.test(value);
}

/**
 * Ids the gateway's routes take for themselves: an account of that name would share its webhook
 * path with them. The account of `/webhooks/supplier` is the default account.
 */
const RESERVED_ACCOUNT_IDS: ReadonlyMap<string, string> = new Map([
  ['supplier', "/webhooks/supplier is the default account's webhook route"],
]);

/** Why `id` cannot name a new account (the alphabet, or a reserved name), or undefined. */
export function newAccountIdIssue(id: unknown): string | undefined {
  if (!isAccountId(id)) return ACCOUNT_ID_RULE;
  const reserved = RESERVED_ACCOUNT_IDS.get(id);
  return reserved === undefined ? undefined : `"${id}" is reserved: ${reserved}`;
}

/** The supplier's request-rate tiers: requests per second of one account. */
export const RATE_TIERS = [1, 2, 4, 6] as const;
export type RateTier = (typeof RATE_TIERS)[number];

/**
 * The memo key that carries an account's tier into its workflows: a workflow's supplier tasks
 * carry it as their fairness weight, so the server limits the account to `tier` requests per
 * second (src/durable/account.ts). Its starter sets it from the registry.
 */
export const SUPPLIER_TIER_MEMO = 'supplierTier';

/**
 * The signal (one number: the tier) that tells an account's long-lived singletons (checkout
 * coordinator, tracking sweeper) its tier changed; they take it into their memo at once
 * (src/durable/account.ts followAccountTier).
 */
export const ACCOUNT_TIER_SIGNAL = 'accountTier';

/** What the registry holds about an account, secrets aside: safe to list and to log. */
export interface AccountSettings {
  id: string;
  /** The account's general request rate (requests per second). */
  tier: RateTier;
  /** The supplier's base URL; absent: the deployment's (SUPPLIER_BASE_URL, or the sandbox). */
  baseUrl?: string;
  /** Where the account's order and dispute events go; absent: the deployment's (STORE_EVENTS_URL). */
  storeEventsUrl?: string;
  /**
   * The store's deadlines for its orders (docs/delivery-promises.md), fixed on each order when it
   * is received; an order's own `fulfillment.sla` comes first. Default account: ORDER_SLA.
   */
  sla?: SlaDurations;
  /**
   * The store's margin rule (docs/margin-guard.md) for orders that name none, fixed on each order
   * when it is received. Default account: MARGIN_RULE.
   */
  margin?: MarginRule;
}

/** An account with its secrets: held by workers and the gateway only, never logged. */
export interface Account extends AccountSettings {
  /** The supplier API key. Secret. */
  apiKey: string;
  /** The webhook signing key (the account's openId); absent: learned from its token response. */
  openId?: string;
  /** The store-events signing secret(s) (`whsec_…`); required with storeEventsUrl. Secret. */
  storeEventsSecret?: string;
  /** SHA-256 (hex) of each store intake token that may act on this account's orders. */
  intakeTokenSha256: readonly string[];
}

/** The accounts a process knows now; the registry reloads it when the store changes. */
export interface AccountDirectory {
  /** The account, or undefined when the registry has no such account (refuse, never guess). */
  get(id: string): Account | undefined;
  list(): readonly Account[];
  /** Called after each change the process has taken in (added, removed, tier changed, …). */
  subscribe(listener: (accounts: readonly Account[]) => void): () => void;
}

/**
 * The scope that names an account's per-account workflows (session, coordinator, sweeper, inbox)
 * within a queue set: the default account keeps the ids it had before accounts were data
 * (the queue prefix alone), so runs in flight keep their ids; another account adds its id.
 */
export function accountScope(queuePrefix: string, account: string): string {
  if (account === DEFAULT_ACCOUNT) return queuePrefix;
  return queuePrefix === '' ? account : `${queuePrefix}/${account}`;
}

/** Thrown where an order or a command names an account that the registry does not have. */
export class UnknownAccountError extends Error {
  override readonly name = 'UnknownAccountError';
  constructor(readonly account: string) {
    super(`no supplier account "${account}" (add it with \`dropflow account add ${account}\`)`);
  }
}

/**
 * The type of the non-retryable activity failure of a task whose account (its fairness key) the
 * worker's directory does not have: the call was never sent; a person adds the account and resumes.
 */
export const UNKNOWN_ACCOUNT_FAILURE = 'UnknownAccount';

// ---- the store connections it holds (docs/store-shopify.md, docs/store-woocommerce.md) ------

export const StorePlatform = {
  Shopify: 'shopify',
  WooCommerce: 'woocommerce',
} as const;
export type StorePlatform = (typeof StorePlatform)[keyof typeof StorePlatform];
export const STORE_PLATFORMS: readonly StorePlatform[] = Object.values(StorePlatform);

/** The Shopify webhook topic that hands an order to dropflow (the merchant's choice). */
export const OrderTrigger = {
  /** As soon as the order exists (Shopify `orders/create`); an unpaid order waits for payment. */
  Created: 'orders/create',
  /** Once the store took the payment (Shopify `orders/paid`). */
  Paid: 'orders/paid',
} as const;
export type OrderTrigger = (typeof OrderTrigger)[keyof typeof OrderTrigger];

/** A connection's id: the same alphabet as an account id (it names routes and workflow ids). */
export const STORE_CONNECTION_ID = ACCOUNT_ID;
export const STORE_CONNECTION_ID_RULE = ACCOUNT_ID_RULE;

export function isStoreConnectionId(value: unknown): value is string {
  return typeof value === 'string' && STORE_CONNECTION_ID.test(value);
}

/** Shopify Admin API versions look like `2025-10`. */
export const SHOPIFY_API_VERSION = /^\d{4}-(01|04|07|10)$/;
/** The version `store add` sets when none is given. */
export const DEFAULT_SHOPIFY_API_VERSION = '2025-10';

/** A store connection, secrets aside: safe to list and to log. */
export interface StoreConnection {
  id: string;
  /** The supplier account that fulfils this store's orders. */
  account: string;
  platform: StorePlatform;
  /**
   * Where the platform's API is: Shopify `https://<shop>/admin/api/<version>`, WooCommerce
   * `<siteUrl>/wp-json/wc/v3`. Derived from shopDomain / siteUrl unless overridden (tests,
   * proxies); https unless loopback.
   */
  apiBaseUrl: string;
  /** Shopify: `<shop>.myshopify.com`. */
  shopDomain?: string;
  /** WooCommerce: the site's URL. */
  siteUrl?: string;
  /** Shopify: the Admin API version, e.g. `2025-10`. */
  apiVersion?: string;
  /** Shopify: which topic hands an order over. WooCommerce orders are handed over when paid. */
  orderTrigger: OrderTrigger;
  /** How long an order waits before any supplier call (ISO-8601 duration); absent: none. */
  holdFor?: string;
  /** Whether the platform tells the customer when tracking is written back. */
  notifyCustomer: boolean;
  /** Where the goods ship from (the supplier's fromCountryCode); default CN. */
  fromCountryCode?: string;
  /**
   * WooCommerce: how often the order sweep lists the site's recent orders (ISO-8601 duration,
   * default store/contract.ts DEFAULT_SWEEP_EVERY): WooCommerce does not retry a webhook it could
   * not deliver.
   */
  sweepEvery?: string;
}

export interface ShopifySecrets {
  /** Admin API access token (`shpat_…`). */
  adminAccessToken: string;
  /** The app's client secret: the key of webhook HMACs. */
  clientSecret: string;
}

export interface WooCommerceSecrets {
  consumerKey: string;
  consumerSecret: string;
  /** The secret set on the site's webhooks: the key of `X-WC-Webhook-Signature`. */
  webhookSecret: string;
}

/** A connection with its secrets: held by workers and the gateway only, never logged. */
export type Store =
  | (StoreConnection & { platform: 'shopify'; secrets: ShopifySecrets })
  | (StoreConnection & { platform: 'woocommerce'; secrets: WooCommerceSecrets });

/** The store connections a process knows now (the account registry's `stores`). */
export interface StoreDirectory {
  /** The connection, or undefined when the registry has none by that id (refuse, never guess). */
  store(id: string): Store | undefined;
  stores(): readonly Store[];
  /** The supplier variant a store SKU is explicitly mapped to (`dropflow store map`). */
  mappedVid(connection: string, sku: string): string | undefined;
  /** Reads the registry again now if it changed (a watched directory), before a look-up. */
  refresh?(): Promise<void>;
}

/** An explicit mapping of a store SKU to a supplier variant, per connection. */
export interface SkuMapping {
  connection: string;
  sku: string;
  vid: string;
}
