/**
 * The edits `dropflow store add|remove|map` make to the registry file (each under its lock,
 * registryFile.ts) and what `store list` shows: settings and which secrets are set, never a
 * secret. A refused edit names the field and the rule, and leaves the file as it was.
 */
import { accountsFile, type Config } from '../config/environment.js';
import type { FieldIssue } from '../supplier/errors.js';
import { toFieldIssues } from '../supplier/issues.js';
import type { SkuMapping, StoreConnection } from './contract.js';
import { secretBox } from './registry.js';
import { readRegistry, updateRegistry, type RegistryDocument } from './registryFile.js';
import { connectionOf, StoredStore } from './registryStores.js';
import { AccountEditError } from './registryEdits.js';

/** A connection as `store add` takes it: settings, and secrets in clear (sealed before written). */
export interface StoreInput {
  id: string;
  account?: string;
  platform: string;
  apiBaseUrl?: string;
  shopDomain?: string;
  siteUrl?: string;
  apiVersion?: string;
  orderTrigger?: string;
  holdFor?: string;
  /** WooCommerce: the order sweep's interval (ISO-8601). */
  sweepEvery?: string;
  notifyCustomer?: boolean;
  fromCountryCode?: string;
  secrets: Record<string, string>;
}

/** What `store list` shows of a connection. */
export interface StoreListing extends StoreConnection {
  /** The names of its secrets that are set (never their values). */
  secretsSet: string[];
  mappings: number;
}

const SECRET_NAMES: Partial<Record<string, string[]>> = {
  shopify: ['adminAccessToken', 'clientSecret'],
  woocommerce: ['consumerKey', 'consumerSecret', 'webhookSecret'],
};

/** Adds a connection, or with `update` replaces one (its mappings stay). */
export async function addStore(
  config: Config,
  input: StoreInput,
  { update = false } = {},
): Promise<RegistryDocument> {
  const box = secretBox(config);
  const names = SECRET_NAMES[input.platform] ?? [];
  const given = names.filter((n) => (input.secrets[n] ?? '') !== '');
  const secrets = Object.fromEntries(
    await Promise.all(given.map(async (n) => [n, await box.seal(input.secrets[n]!)] as const)),
  );
  const { secrets: _clear, ...settings } = input;
  const checked = StoredStore.safeParse({ account: 'default', ...settings, secrets });
  if (!checked.success) {
    // Every field at once: a missing secret is named by its own rule, beside the settings'.
    const missing = names
      .filter((n) => !given.includes(n))
      .map((n) => ({ field: `secrets.${n}`, rule: 'is required' }));
    const issues = toFieldIssues(checked.error).filter(
      (i) => !missing.some((m) => m.field === i.field),
    );
    throw new AccountEditError([...issues, ...missing]);
  }
  return updateRegistry(accountsFile(config), (doc) => {
    const i = doc.stores.findIndex((s) => s.id === input.id);
    if (i >= 0 && !update) {
      throw new AccountEditError([
        { field: 'id', rule: `store "${input.id}" exists already (replace it with --update)` },
      ]);
    }
    if (i < 0 && update) {
      throw new AccountEditError([{ field: 'id', rule: `no store "${input.id}" to update` }]);
    }
    const stores = [...doc.stores];
    if (i >= 0) stores[i] = checked.data;
    else stores.push(checked.data);
    return Promise.resolve({ ...doc, stores });
  });
}

/** Removes a connection and its mappings. */
export function removeStore(config: Config, id: string): Promise<RegistryDocument> {
  return updateRegistry(accountsFile(config), (doc) => {
    if (!doc.stores.some((s) => s.id === id)) {
      throw new AccountEditError([{ field: 'id', rule: `no store "${id}" in the registry` }]);
    }
    return Promise.resolve({
      ...doc,
      stores: doc.stores.filter((s) => s.id !== id),
      skuMappings: doc.skuMappings.filter((m) => m.connection !== id),
    });
  });
}

/** Sets (or replaces) the explicit mappings of one store's SKUs; returns the file's view. */
export function mapSkus(
  config: Config,
  connection: string,
  mappings: readonly Omit<SkuMapping, 'connection'>[],
): Promise<RegistryDocument> {
  const issues: FieldIssue[] = [];
  mappings.forEach((m, i) => {
    if (m.sku.trim() === '' || m.sku.length > 200) {
      issues.push({ field: `[${i}].sku`, rule: 'must be 1 to 200 characters' });
    }
    if (m.vid.trim() === '' || m.vid.length > 50) {
      issues.push({ field: `[${i}].vid`, rule: 'must be 1 to 50 characters' });
    }
  });
  if (issues.length > 0) return Promise.reject(new AccountEditError(issues));
  return updateRegistry(accountsFile(config), (doc) => {
    if (!doc.stores.some((s) => s.id === connection)) {
      throw new AccountEditError([{ field: 'store', rule: `no store "${connection}"` }]);
    }
    const given = new Map(mappings.map((m) => [m.sku.trim(), m.vid.trim()]));
    const kept = doc.skuMappings.filter((m) => m.connection !== connection || !given.has(m.sku));
    const added = [...given].map(([sku, vid]) => ({ connection, sku, vid }));
    return Promise.resolve({ ...doc, skuMappings: [...kept, ...added] });
  });
}

/** `sku,vid` lines (a header line `sku,vid` is skipped); the issues name the line. */
export function parseMappingCsv(text: string): Omit<SkuMapping, 'connection'>[] {
  const out: Omit<SkuMapping, 'connection'>[] = [];
  const issues: FieldIssue[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const cells = line.split(',').map((c) => c.trim().replace(/^"(.*)"$/, '$1'));
    if (line.trim() === '' || (i === 0 && cells[0]?.toLowerCase() === 'sku')) return;
    if (cells.length !== 2 || cells[0] === '' || cells[1] === '') {
      issues.push({ field: `line ${i + 1}`, rule: 'must be sku,vid' });
      return;
    }
    out.push({ sku: cells[0]!, vid: cells[1]! });
  });
  if (issues.length > 0) throw new AccountEditError(issues);
  return out;
}

/** The connections, by id, with which secrets are set and how many SKUs each maps. */
export async function listStores(config: Config): Promise<StoreListing[]> {
  const doc = await readRegistry(accountsFile(config));
  return [...doc.stores]
    .sort((x, y) => x.id.localeCompare(y.id))
    .map((s) => ({
      ...connectionOf(s),
      secretsSet: Object.keys(s.secrets),
      mappings: doc.skuMappings.filter((m) => m.connection === s.id).length,
    }));
}
