/**
 * The edits `dropflow account add|remove|set-tier` make to the registry file, each under the file's
 * lock (registryFile.ts), and what `account list` shows: settings and which secrets are set, never
 * a secret itself. A refused edit names the field and the rule, and leaves the file as it was.
 */
import { accountsFile, type Config } from '../config/environment.js';
import { parseStoreSecrets, StoreSecretError } from '../terms/storeEventsSettings.js';
import { isOutboundUrl, OUTBOUND_URL_RULE } from '../net/outboundUrl.js';
import type { FieldIssue } from '../supplier/errors.js';
import { toFieldIssues } from '../supplier/issues.js';
import { MarginRule } from '../terms/margin.js';
import { SlaDurations } from '../terms/sla.js';
import {
  ACCOUNT_ID,
  ACCOUNT_ID_RULE,
  DEFAULT_ACCOUNT,
  newAccountIdIssue,
  RATE_TIERS,
  type AccountSettings,
  type RateTier,
} from './contract.js';
import { defaultAccount, secretBox } from './registry.js';
import {
  intakeTokenHash,
  readRegistry,
  updateRegistry,
  type RegistryDocument,
  type StoredAccount,
} from './registryFile.js';

/** An edit the registry refuses; nothing was written. */
export class AccountEditError extends Error {
  override readonly name = 'AccountEditError';
  constructor(readonly issues: readonly FieldIssue[]) {
    super(issues.map((i) => `${i.field}: ${i.rule}`).join('; '));
  }
}

export interface AccountChanges {
  tier?: number;
  baseUrl?: string;
  storeEventsUrl?: string;
  /** The store's deadlines (docs/delivery-promises.md); replaces the account's when given. */
  sla?: unknown;
  /** The store's margin rule (docs/margin-guard.md); replaces the account's when given. */
  margin?: unknown;
  /** Secrets, in clear: sealed before they are written. */
  apiKey?: string;
  openId?: string;
  storeEventsSecret?: string;
  /** Store intake tokens, in clear: only their SHA-256 is kept. Replaces the list when given. */
  intakeTokens?: readonly string[];
}

/** What `account list` shows of one account. */
export interface AccountListing extends AccountSettings {
  /** Where it comes from: the environment (the default account) or the registry file. */
  source: 'environment' | 'file';
  hasApiKey: boolean;
  hasOpenId: boolean;
  hasStoreEventsSecret: boolean;
  intakeTokens: number;
}

export interface Listing {
  file: string;
  revision: number;
  /** Whether the file's secrets are encrypted at rest (DROPFLOW_ENCRYPTION_KEY set). */
  encryptedAtRest: boolean;
  accounts: AccountListing[];
}

const MIN_INTAKE_TOKEN = 16;

function checkId(id: string, { adding = false } = {}): void {
  const issue = adding ? newAccountIdIssue(id) : ACCOUNT_ID.test(id) ? undefined : ACCOUNT_ID_RULE;
  if (issue !== undefined) throw new AccountEditError([{ field: 'id', rule: issue }]);
  if (id === DEFAULT_ACCOUNT) {
    throw new AccountEditError([
      {
        field: 'id',
        rule: `"${DEFAULT_ACCOUNT}" is the deployment's own account: set it with SUPPLIER_API_KEY, SUPPLIER_BASE_URL and SUPPLIER_RATE_PER_SECOND`,
      },
    ]);
  }
}

export function parseTier(value: unknown): RateTier {
  const n = typeof value === 'string' ? Number(value) : value;
  if (!(RATE_TIERS as readonly unknown[]).includes(n)) {
    throw new AccountEditError([
      {
        field: 'tier',
        rule: `must be one of the rate tiers ${RATE_TIERS.join(', ')} (requests per second)`,
      },
    ]);
  }
  return n as RateTier;
}

function changeIssues(changes: AccountChanges): FieldIssue[] {
  const issues: FieldIssue[] = [];
  for (const field of ['baseUrl', 'storeEventsUrl'] as const) {
    const url = changes[field];
    if (url !== undefined && !isOutboundUrl(url)) {
      issues.push({ field, rule: OUTBOUND_URL_RULE });
    }
  }
  for (const [field, schema] of [
    ['sla', SlaDurations],
    ['margin', MarginRule],
  ] as const) {
    if (changes[field] === undefined) continue;
    const checked = schema.safeParse(changes[field]);
    if (!checked.success) {
      issues.push(
        ...toFieldIssues(checked.error).map((i) => ({
          ...i,
          field: i.field === '' ? field : `${field}.${i.field}`,
        })),
      );
    }
  }
  if (changes.apiKey !== undefined && (changes.apiKey === '' || changes.apiKey.length > 200)) {
    issues.push({ field: 'apiKey', rule: 'must be 1 to 200 characters' });
  }
  if (changes.storeEventsSecret !== undefined) {
    try {
      parseStoreSecrets(changes.storeEventsSecret);
    } catch (err) {
      if (!(err instanceof StoreSecretError)) throw err;
      issues.push({ field: 'storeEventsSecret', rule: err.message });
    }
  }
  changes.intakeTokens?.forEach((token, i) => {
    if (token.length < MIN_INTAKE_TOKEN || /\s/.test(token)) {
      issues.push({
        field: `intakeTokens[${i}]`,
        rule: `must be at least ${MIN_INTAKE_TOKEN} characters, without spaces`,
      });
    }
  });
  return issues;
}

/**
 * Adds the account `id`, or with `update` changes the given fields of an existing one. A new
 * account needs its tier and API key.
 */
export async function addAccount(
  config: Config,
  id: string,
  changes: AccountChanges,
  { update = false } = {},
): Promise<RegistryDocument> {
  checkId(id, { adding: !update });
  if (changes.tier !== undefined) parseTier(changes.tier);
  const issues = changeIssues(changes);
  if (issues.length > 0) throw new AccountEditError(issues);
  const box = secretBox(config);
  return updateRegistry(accountsFile(config), async (doc) => {
    const i = doc.accounts.findIndex((a) => a.id === id);
    if (i >= 0 && !update) {
      throw new AccountEditError([
        {
          field: 'id',
          rule: `account "${id}" exists already (change it with --update, or \`dropflow account set-tier\`)`,
        },
      ]);
    }
    if (i < 0 && update) {
      throw new AccountEditError([{ field: 'id', rule: `no account "${id}" to update` }]);
    }
    const before = i >= 0 ? doc.accounts[i] : undefined;
    if (before === undefined) {
      const missing: FieldIssue[] = [];
      if (changes.tier === undefined) missing.push({ field: 'tier', rule: 'is required' });
      if (changes.apiKey === undefined) missing.push({ field: 'apiKey', rule: 'is required' });
      if (missing.length > 0) throw new AccountEditError(missing);
    }
    const seal = (secret: string | undefined) =>
      secret === undefined ? Promise.resolve(undefined) : box.seal(secret);
    const [apiKey, openId, storeEventsSecret] = await Promise.all([
      seal(changes.apiKey),
      seal(changes.openId),
      seal(changes.storeEventsSecret),
    ]);
    const next: StoredAccount = {
      ...before,
      id,
      tier: parseTier(changes.tier ?? before?.tier),
      apiKey: apiKey ?? before!.apiKey,
      intakeTokenSha256:
        changes.intakeTokens?.map(intakeTokenHash) ?? before?.intakeTokenSha256 ?? [],
      ...(changes.baseUrl !== undefined && { baseUrl: changes.baseUrl }),
      ...(changes.storeEventsUrl !== undefined && { storeEventsUrl: changes.storeEventsUrl }),
      ...(changes.sla !== undefined && { sla: SlaDurations.parse(changes.sla) }),
      ...(changes.margin !== undefined && { margin: MarginRule.parse(changes.margin) }),
      ...(openId !== undefined && { openId }),
      ...(storeEventsSecret !== undefined && { storeEventsSecret }),
    };
    if (next.storeEventsUrl !== undefined && next.storeEventsSecret === undefined) {
      throw new AccountEditError([
        { field: 'storeEventsSecret', rule: 'is required with storeEventsUrl' },
      ]);
    }
    const accounts = [...doc.accounts];
    if (i >= 0) accounts[i] = next;
    else accounts.push(next);
    return { ...doc, accounts };
  });
}

/** Changes the tier of `id`; workers and singletons follow it without a restart. */
export function setTier(config: Config, id: string, tier: number): Promise<RegistryDocument> {
  return addAccount(config, id, { tier }, { update: true });
}

/** Removes `id` from the file; whether it may go (open runs) is the caller's to check first. */
export async function removeAccount(config: Config, id: string): Promise<RegistryDocument> {
  checkId(id);
  return updateRegistry(accountsFile(config), (doc) => {
    if (!doc.accounts.some((a) => a.id === id)) {
      throw new AccountEditError([{ field: 'id', rule: `no account "${id}" in the registry` }]);
    }
    return Promise.resolve({ ...doc, accounts: doc.accounts.filter((a) => a.id !== id) });
  });
}

type ShownSettings = Pick<
  AccountListing,
  'id' | 'tier' | 'baseUrl' | 'storeEventsUrl' | 'sla' | 'margin'
>;

/** What a listing shows of an account's settings, whichever store it comes from. */
function shownSettings(a: ShownSettings): ShownSettings {
  return {
    id: a.id,
    tier: a.tier,
    ...(a.baseUrl !== undefined && { baseUrl: a.baseUrl }),
    ...(a.storeEventsUrl !== undefined && { storeEventsUrl: a.storeEventsUrl }),
    ...(a.sla !== undefined && { sla: a.sla }),
    ...(a.margin !== undefined && { margin: a.margin }),
  };
}

/** The accounts, default first, with which secrets are set: never a secret. */
export async function listAccounts(config: Config): Promise<Listing> {
  const file = accountsFile(config);
  const doc = await readRegistry(file);
  const own = defaultAccount(config);
  return {
    file,
    revision: doc.revision,
    encryptedAtRest: secretBox(config).encrypted,
    accounts: [
      {
        ...shownSettings(own),
        source: 'environment',
        hasApiKey: own.apiKey !== '',
        hasOpenId: own.openId !== undefined,
        hasStoreEventsSecret: own.storeEventsSecret !== undefined,
        intakeTokens: 0,
      },
      // By id: the file keeps them in the order they were added, which two CLIs may race on.
      ...[...doc.accounts]
        .sort((x, y) => x.id.localeCompare(y.id))
        .map((a): AccountListing => ({
          ...shownSettings(a),
          source: 'file',
          hasApiKey: true,
          hasOpenId: a.openId !== undefined,
          hasStoreEventsSecret: a.storeEventsSecret !== undefined,
          intakeTokens: a.intakeTokenSha256.length,
        })),
    ],
  };
}
