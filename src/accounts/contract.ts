/**
 * Supplier accounts as data (issue 17): one deployment of workers serves many supplier accounts.
 * An account is a record of the registry, not a queue set or a deployment. This contract is what
 * every other area imports: the id rule, the rate tiers, the record, and the directory that
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
