/**
 * The account registry as a process sees it (docs/accounts.md): the deployment's default account
 * from the environment, plus the accounts of ACCOUNTS_FILE. `watchAccountDirectory` re-reads the
 * file when it changes (its mtime, size or inode, polled: fs.watch misses the symlink swaps of
 * mounted Kubernetes secrets), and a file that breaks a rule is refused with the field and the rule
 * while the process keeps its last good view: a typo never drops the accounts that orders need.
 */
import { stat } from 'node:fs/promises';

import { accountsFile, supplierTarget, type Config } from '../config/environment.js';
import type { Logger } from '../telemetry/log.js';
import { codecFor, keyRingFromConfig } from '../temporal/encryptionKeys.js';
import {
  DEFAULT_ACCOUNT,
  RATE_TIERS,
  type Account,
  type AccountDirectory,
  type RateTier,
  type SkuMapping,
  type Store,
  type StoreDirectory,
} from './contract.js';
import { openAccounts, readRegistry, RegistryFileError, SecretBox } from './registryFile.js';
import { openStore } from './registryStores.js';

/** How often the watcher looks at the file. */
export const WATCH_INTERVAL_MS = 2_000;

/** The tier of a configured rate: the highest tier it reaches (at least the lowest). */
export function tierOfRate(ratePerSecond: number): RateTier {
  return [...RATE_TIERS].reverse().find((t) => t <= ratePerSecond) ?? RATE_TIERS[0];
}

/**
 * The deployment's own account: SUPPLIER_API_KEY/SUPPLIER_BASE_URL (or the local sandbox's key),
 * SUPPLIER_RATE_PER_SECOND, WEBHOOK_OPEN_ID and STORE_EVENTS_*. No intake token of its own: the
 * operator's GATEWAY_TOKEN acts on every account.
 */
export function defaultAccount(config: Config): Account {
  const { baseUrl, apiKey } = supplierTarget(config);
  return {
    id: DEFAULT_ACCOUNT,
    tier: tierOfRate(config.SUPPLIER_RATE_PER_SECOND),
    baseUrl,
    apiKey,
    ...(config.WEBHOOK_OPEN_ID !== undefined && { openId: config.WEBHOOK_OPEN_ID }),
    ...(config.STORE_EVENTS_URL !== undefined && { storeEventsUrl: config.STORE_EVENTS_URL }),
    ...(config.ORDER_SLA !== undefined && { sla: config.ORDER_SLA }),
    ...(config.MARGIN_RULE !== undefined && { margin: config.MARGIN_RULE }),
    ...(config.STORE_EVENTS_SECRET !== undefined && {
      storeEventsSecret: config.STORE_EVENTS_SECRET,
    }),
    intakeTokenSha256: [],
  };
}

/** The box that seals and opens the registry's secrets with the configured payload keys. */
export function secretBox(config: Config): SecretBox {
  return new SecretBox(codecFor(keyRingFromConfig(config)));
}

/**
 * What one read of the registry gave: the accounts (default first), the store connections and
 * their SKU mappings, and the file's revision.
 */
export interface RegistryView {
  accounts: Account[];
  stores?: Store[];
  skuMappings?: SkuMapping[];
  revision: number;
}

export async function readAccounts(config: Config): Promise<RegistryView> {
  const path = accountsFile(config);
  const doc = await readRegistry(path);
  const box = secretBox(config);
  const accounts = await openAccounts(path, doc, box);
  const stores = await Promise.all(
    doc.stores.map((s, i) =>
      openStore(s, (stored, field) => box.open(stored, field, path), `stores[${i}]`),
    ),
  );
  return {
    accounts: [defaultAccount(config), ...accounts],
    stores,
    skuMappings: doc.skuMappings,
    revision: doc.revision,
  };
}

const mappingKey = (connection: string, sku: string) => `${connection}\u0000${sku}`;

/** A directory a process holds: its accounts and stores now, and who listens for changes. */
export class RegistryDirectory implements AccountDirectory, StoreDirectory {
  #byId = new Map<string, Account>();
  #stores = new Map<string, Store>();
  #mappings = new Map<string, string>();
  #listeners = new Set<(accounts: readonly Account[]) => void>();
  #revision: number;

  constructor(view: RegistryView) {
    this.#revision = view.revision;
    this.#byId = new Map(view.accounts.map((a) => [a.id, a]));
    this.#takeStores(view);
  }

  #takeStores(view: RegistryView): void {
    this.#stores = new Map((view.stores ?? []).map((s) => [s.id, s]));
    this.#mappings = new Map(
      (view.skuMappings ?? []).map((m) => [mappingKey(m.connection, m.sku), m.vid]),
    );
  }

  store(id: string): Store | undefined {
    return this.#stores.get(id);
  }

  stores(): readonly Store[] {
    return [...this.#stores.values()];
  }

  mappedVid(connection: string, sku: string): string | undefined {
    return this.#mappings.get(mappingKey(connection, sku));
  }

  /** The revision of the file the view was read from (0: no file). */
  get revision(): number {
    return this.#revision;
  }

  get(id: string): Account | undefined {
    return this.#byId.get(id);
  }

  list(): readonly Account[] {
    return [...this.#byId.values()];
  }

  subscribe(listener: (accounts: readonly Account[]) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Takes in a new view; listeners hear of it when an account was added, removed or changed. */
  replace(view: RegistryView): boolean {
    this.#revision = view.revision;
    // Stores and mappings change without the accounts' listeners: readers ask each time.
    this.#takeStores(view);
    const next = new Map(view.accounts.map((a) => [a.id, a]));
    const same =
      next.size === this.#byId.size &&
      [...next].every(([id, a]) => JSON.stringify(this.#byId.get(id)) === JSON.stringify(a));
    if (same) return false;
    this.#byId = next;
    const accounts = this.list();
    for (const listener of this.#listeners) {
      try {
        listener(accounts);
      } catch {
        // One listener's failure must not keep the others from the change.
      }
    }
    return true;
  }
}

/**
 * The registry read once: for commands and processes that do not follow changes. A file that breaks
 * a rule throws RegistryFileError (field and rule): there is no earlier view to keep.
 */
export async function loadAccountDirectory(config: Config): Promise<RegistryDirectory> {
  return new RegistryDirectory(await readAccounts(config));
}

export interface WatchedAccountDirectory extends AccountDirectory, StoreDirectory {
  readonly revision: number;
  /** Reads the file now if it changed (the watcher does so every WATCH_INTERVAL_MS). */
  refresh(): Promise<void>;
  /** Stops watching. */
  close(): void;
}

/**
 * The registry, read now and again whenever the file changes, until `close()`. A read that fails
 * (bad JSON, a broken rule, a secret that does not decrypt, the file gone) is logged with the field
 * and the rule, and the last good view stays.
 */
export async function watchAccountDirectory(
  config: Config,
  log: Logger,
  { intervalMs = WATCH_INTERVAL_MS } = {},
): Promise<WatchedAccountDirectory> {
  const path = accountsFile(config);
  const fingerprint = async () => {
    const s = await stat(path).catch(() => undefined);
    return s === undefined ? 'none' : `${s.ino}:${s.size}:${s.mtimeMs}`;
  };
  let seen = await fingerprint();
  const directory = new RegistryDirectory(await readAccounts(config));
  log.info(
    { file: path, revision: directory.revision, accounts: directory.list().map((a) => a.id) },
    'account registry read',
  );
  let refusedAt: string | undefined;
  let reading: Promise<void> | undefined;

  const read = async () => {
    const now = await fingerprint();
    if (now === seen) return;
    if (now === 'none' && seen !== 'none') {
      if (refusedAt !== now)
        log.warn(
          { file: path },
          'account registry: the file is gone; keeping the accounts read before',
        );
      refusedAt = now;
      return;
    }
    try {
      const view = await readAccounts(config);
      seen = now;
      refusedAt = undefined;
      if (directory.replace(view)) {
        log.info(
          { file: path, revision: view.revision, accounts: view.accounts.map((a) => a.id) },
          'account registry changed',
        );
      }
    } catch (err) {
      if (!(err instanceof RegistryFileError)) throw err;
      if (refusedAt !== now) {
        log.error(
          { file: path, issues: err.issues },
          'account registry refused; keeping the accounts read before',
        );
      }
      refusedAt = now;
    }
  };
  const refresh = () => {
    reading ??= read()
      .catch((err: unknown) => {
        log.error({ err }, 'account registry: reading failed; keeping the accounts read before');
      })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  const timer = setInterval(() => void refresh(), intervalMs);
  timer.unref();

  return {
    get revision() {
      return directory.revision;
    },
    get: (id) => directory.get(id),
    list: () => directory.list(),
    store: (id) => directory.store(id),
    stores: () => directory.stores(),
    mappedVid: (connection, sku) => directory.mappedVid(connection, sku),
    subscribe: (listener) => directory.subscribe(listener),
    refresh,
    close: () => {
      clearInterval(timer);
    },
  };
}
