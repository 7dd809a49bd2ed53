/**
 * The account registry's file as processes share it: edits that race keep each other, a bad file
 * is refused by field and rule while a running process keeps the accounts it had, secrets are
 * encrypted at rest with the payload key (and still read after a key rotation), and the default
 * account comes from the environment only.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';

import { loadConfig, type Config } from '../../src/config/environment.js';
import type { Account } from '../../src/accounts/contract.js';
import {
  loadAccountDirectory,
  watchAccountDirectory,
  type WatchedAccountDirectory,
} from '../../src/accounts/registry.js';
import {
  addAccount,
  AccountEditError,
  listAccounts,
  removeAccount,
  setTier,
} from '../../src/accounts/registryEdits.js';
import { intakeTokenHash, RegistryFileError } from '../../src/accounts/registryFile.js';
import { staticAccountDirectory } from '../../src/accounts/staticDirectory.js';

const quiet = pino({ level: 'silent' });
const KEY_A = randomBytes(32).toString('base64');
const KEY_B = randomBytes(32).toString('base64');

async function configIn(env: NodeJS.ProcessEnv = {}): Promise<Config> {
  const dir = await mkdtemp(join(tmpdir(), 'dropflow-accounts-'));
  return loadConfig({ DROPFLOW_DATA_DIR: dir, ...env });
}

const watched: WatchedAccountDirectory[] = [];
afterEach(() => {
  for (const w of watched.splice(0)) w.close();
});

describe('the registry file', () => {
  it('keeps every account when many writers add at once (the lock serializes them)', async () => {
    const config = await configIn();
    const ids = Array.from({ length: 12 }, (_, i) => `shop-${i}`);
    await Promise.all(
      ids.map((id, i) =>
        addAccount(config, id, { tier: [1, 2, 4, 6][i % 4]!, apiKey: `key-${id}` }),
      ),
    );
    const directory = await loadAccountDirectory(config);
    expect(
      directory
        .list()
        .map((a) => a.id)
        .sort(),
    ).toEqual(['default', ...ids].sort());
    expect(directory.get('shop-5')?.apiKey).toBe('key-shop-5');
    expect(directory.revision).toBe(ids.length);
    const file = await stat(join(config.DROPFLOW_DATA_DIR, 'accounts.json'));
    expect(file.mode & 0o777).toBe(0o600);
  });

  it('refuses a bad edit by field and rule and leaves the file as it was', async () => {
    const config = await configIn();
    await addAccount(config, 'shop-a', { tier: 2, apiKey: 'k' });
    const before = await readFile(join(config.DROPFLOW_DATA_DIR, 'accounts.json'), 'utf8');
    await expect(addAccount(config, 'shop-b', { tier: 3, apiKey: 'k' })).rejects.toMatchObject({
      issues: [
        { field: 'tier', rule: 'must be one of the rate tiers 1, 2, 4, 6 (requests per second)' },
      ],
    });
    await expect(addAccount(config, 'Shop B', { tier: 1, apiKey: 'k' })).rejects.toThrow(
      /id: must be 1 to 32 lower-case letters/,
    );
    await expect(addAccount(config, 'default', { tier: 1, apiKey: 'k' })).rejects.toThrow(
      /the deployment's own account/,
    );
    await expect(addAccount(config, 'shop-a', { tier: 1, apiKey: 'k' })).rejects.toThrow(
      /exists already/,
    );
    await expect(addAccount(config, 'shop-c', { tier: 1 })).rejects.toBeInstanceOf(
      AccountEditError,
    );
    await expect(removeAccount(config, 'shop-z')).rejects.toThrow(/no account "shop-z"/);
    expect(await readFile(join(config.DROPFLOW_DATA_DIR, 'accounts.json'), 'utf8')).toBe(before);
  });

  it('encrypts secrets at rest with DROPFLOW_ENCRYPTION_KEY and reads them after a rotation', async () => {
    const config = await configIn({
      DROPFLOW_ENCRYPTION_KEY: KEY_A,
      DROPFLOW_ENCRYPTION_KEY_ID: 'a',
    });
    const token = 'store-token-of-shop-a-0123456789';
    await addAccount(config, 'shop-a', {
      tier: 4,
      apiKey: 'api-key-in-clear-nowhere',
      openId: 'open-id-in-clear-nowhere',
      intakeTokens: [token],
    });
    const text = await readFile(join(config.DROPFLOW_DATA_DIR, 'accounts.json'), 'utf8');
    expect(text).not.toContain('api-key-in-clear-nowhere');
    expect(text).not.toContain('open-id-in-clear-nowhere');
    expect(text).not.toContain(token);
    expect(text).toContain(intakeTokenHash(token));
    expect((await listAccounts(config)).encryptedAtRest).toBe(true);

    const account = (await loadAccountDirectory(config)).get('shop-a');
    expect(account).toMatchObject({
      apiKey: 'api-key-in-clear-nowhere',
      openId: 'open-id-in-clear-nowhere',
      intakeTokenSha256: [intakeTokenHash(token)],
    });

    // Rotated: the new key writes, the old one still reads.
    const rotated = loadConfig({
      DROPFLOW_DATA_DIR: config.DROPFLOW_DATA_DIR,
      DROPFLOW_ENCRYPTION_KEY: KEY_B,
      DROPFLOW_ENCRYPTION_KEY_ID: 'b',
      DROPFLOW_DECRYPTION_KEYS: `a=${KEY_A}`,
    });
    await addAccount(rotated, 'shop-b', { tier: 1, apiKey: 'second-key' });
    const both = await loadAccountDirectory(rotated);
    expect(both.get('shop-a')?.apiKey).toBe('api-key-in-clear-nowhere');
    expect(both.get('shop-b')?.apiKey).toBe('second-key');

    // Without the key, the file is refused by the field, not read wrong.
    const keyless = loadConfig({ DROPFLOW_DATA_DIR: config.DROPFLOW_DATA_DIR });
    await expect(loadAccountDirectory(keyless)).rejects.toThrow(
      /accounts\[0\]\.apiKey: is encrypted \(key id "a"\) and DROPFLOW_ENCRYPTION_KEY is not set/,
    );
  });

  it('keeps secrets in clear without a key, and says so', async () => {
    const config = await configIn();
    await addAccount(config, 'shop-a', { tier: 1, apiKey: 'plain-key' });
    const listing = await listAccounts(config);
    expect(listing.encryptedAtRest).toBe(false);
    expect(JSON.stringify(listing)).not.toContain('plain-key');
    expect(listing.accounts.map((a) => [a.id, a.source, a.hasApiKey])).toEqual([
      ['default', 'environment', true],
      ['shop-a', 'file', true],
    ]);
  });

  it('takes the default account from the environment, never from the file', async () => {
    const config = await configIn({
      SUPPLIER_BASE_URL: 'https://supplier.example.com',
      SUPPLIER_API_KEY: 'env-key',
      SUPPLIER_RATE_PER_SECOND: '4',
    });
    const account = (await loadAccountDirectory(config)).get('default');
    expect(account).toMatchObject({
      id: 'default',
      tier: 4,
      baseUrl: 'https://supplier.example.com',
      apiKey: 'env-key',
    });
    await writeFile(
      join(config.DROPFLOW_DATA_DIR, 'accounts.json'),
      JSON.stringify({
        version: 1,
        revision: 1,
        accounts: [{ id: 'default', tier: 1, apiKey: 'file-key' }],
      }),
    );
    const refused = await loadAccountDirectory(config).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(RegistryFileError);
    expect((refused as RegistryFileError).issues[0]?.field).toBe('accounts[0].id');
  });
});

describe('the watched directory', () => {
  it('takes in an added account and a tier change, and keeps the last good view through a bad file', async () => {
    const config = await configIn();
    await addAccount(config, 'shop-a', { tier: 1, apiKey: 'key-a' });
    const directory = await watchAccountDirectory(config, quiet, { intervalMs: 60_000 });
    watched.push(directory);
    const heard: string[][] = [];
    directory.subscribe((accounts) => heard.push(accounts.map((a) => `${a.id}:${a.tier}`)));

    await addAccount(config, 'shop-b', { tier: 2, apiKey: 'key-b' });
    await setTier(config, 'shop-a', 6);
    await directory.refresh();
    expect(directory.get('shop-a')?.tier).toBe(6);
    expect(directory.get('shop-b')?.apiKey).toBe('key-b');
    expect(heard).toEqual([['default:1', 'shop-a:6', 'shop-b:2']]);

    // A hand edit that breaks a rule: refused, and the accounts stay as they were.
    const path = join(config.DROPFLOW_DATA_DIR, 'accounts.json');
    const good = await readFile(path, 'utf8');
    await writeFile(path, good.replace('"tier": 6', '"tier": 5'));
    await directory.refresh();
    expect(directory.get('shop-a')?.tier).toBe(6);
    expect(directory.list().map((a) => a.id)).toEqual(['default', 'shop-a', 'shop-b']);
    await writeFile(path, '{ not json');
    await directory.refresh();
    expect(directory.get('shop-b')?.apiKey).toBe('key-b');
    expect(heard).toHaveLength(1);

    // Mended: taken in.
    await writeFile(path, good.replace('"tier": 6', '"tier": 4'));
    await directory.refresh();
    expect(directory.get('shop-a')?.tier).toBe(4);
    expect(heard).toHaveLength(2);
  });

  it('notices a change by itself', async () => {
    const config = await configIn();
    const directory = await watchAccountDirectory(config, quiet, { intervalMs: 50 });
    watched.push(directory);
    const added = new Promise<readonly Account[]>((settle) => directory.subscribe(settle));
    await addAccount(config, 'shop-a', { tier: 2, apiKey: 'key-a' });
    expect((await added).map((a) => a.id)).toEqual(['default', 'shop-a']);
  });
});

describe('staticAccountDirectory', () => {
  it('sets and removes accounts and tells subscribers', () => {
    const directory = staticAccountDirectory();
    const heard: number[] = [];
    directory.subscribe((accounts) => heard.push(accounts.length));
    directory.set({ id: 'a', tier: 1, apiKey: 'k', intakeTokenSha256: [] });
    directory.remove('a');
    directory.remove('a');
    expect(heard).toEqual([1, 0]);
    expect(directory.get('a')).toBeUndefined();
  });
});
