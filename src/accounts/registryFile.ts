/**
 * The account registry's file (docs/accounts.md): `{version, revision, accounts: [...]}`, validated
 * with zod (a bad file is refused with the field and the rule it broke), secrets encrypted at rest
 * with the payload keys (DROPFLOW_ENCRYPTION_KEY, rotation through DROPFLOW_DECRYPTION_KEYS) when
 * they are set, in clear otherwise. Writes are atomic (a temporary file renamed over the old one,
 * mode 0600) and serialized by a lock file, so two `dropflow account` commands never lose each
 * other's edits. Secrets and file contents are never logged or put in error messages.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

import { METADATA_ENCODING_KEY } from '@temporalio/common';
import { z } from 'zod';

import { isOutboundUrl, OUTBOUND_URL_RULE } from '../net/outboundUrl.js';
import type { FieldIssue } from '../supplier/errors.js';
import { MarginRule } from '../terms/margin.js';
import { SlaDurations } from '../terms/sla.js';
import {
  type EncryptionCodec,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
} from '../temporal/encryption.js';
import {
  DEFAULT_ACCOUNT,
  newAccountIdIssue,
  RATE_TIERS,
  type Account,
  type RateTier,
} from './contract.js';
import { StoredSecret } from './registrySecrets.js';
import { StoredSkuMapping, StoredStore, storeIssues } from './registryStores.js';

export { StoredSecret };

export const REGISTRY_VERSION = 1 as const;

const SHA256_HEX = /^[0-9a-f]{64}$/;
const outbound = z.string().refine(isOutboundUrl, { error: OUTBOUND_URL_RULE });

const StoredAccount = z.strictObject({
  id: z
    .string()
    .superRefine((id, ctx) => {
      const issue = newAccountIdIssue(id);
      if (issue !== undefined) ctx.addIssue({ code: 'custom', message: issue });
    })
    .refine((id) => id !== DEFAULT_ACCOUNT, {
      error: `"${DEFAULT_ACCOUNT}" is the deployment's own account: it comes from the environment (SUPPLIER_API_KEY), not from the file`,
    }),
  tier: z.number().refine((t): t is RateTier => (RATE_TIERS as readonly number[]).includes(t), {
    error: `must be one of the rate tiers ${RATE_TIERS.join(', ')} (requests per second)`,
  }),
  baseUrl: outbound.optional(),
  storeEventsUrl: outbound.optional(),
  sla: SlaDurations.optional(),
  margin: MarginRule.optional(),
  apiKey: StoredSecret,
  openId: StoredSecret.optional(),
  storeEventsSecret: StoredSecret.optional(),
  intakeTokenSha256: z
    .array(z.string().regex(SHA256_HEX, { error: 'must be a SHA-256 in lower-case hex' }))
    .default([]),
});
export type StoredAccount = z.infer<typeof StoredAccount>;

const RegistryDocument = z
  .strictObject({
    version: z.literal(REGISTRY_VERSION, { error: `must be ${REGISTRY_VERSION}` }),
    revision: z.number().int().min(0),
    accounts: z.array(StoredAccount),
    /** Store connections (registryStores.ts); absent in files written before stores existed. */
    stores: z.array(StoredStore).default([]),
    skuMappings: z.array(StoredSkuMapping).default([]),
  })
  .superRefine((doc, ctx) => {
    for (const issue of storeIssues(doc.accounts, DEFAULT_ACCOUNT, doc.stores, doc.skuMappings)) {
      ctx.addIssue({ code: 'custom', ...issue });
    }
    const seen = new Set<string>();
    doc.accounts.forEach((a, i) => {
      if (seen.has(a.id)) {
        ctx.addIssue({ code: 'custom', path: ['accounts', i, 'id'], message: 'is listed twice' });
      }
      seen.add(a.id);
      if (a.storeEventsUrl !== undefined && a.storeEventsSecret === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['accounts', i, 'storeEventsSecret'],
          message: 'is required with storeEventsUrl',
        });
      }
    });
  });
export type RegistryDocument = z.infer<typeof RegistryDocument>;

/** The registry file breaks a rule, or cannot be read; `issues` name the field and the rule. */
export class RegistryFileError extends Error {
  override readonly name = 'RegistryFileError';
  constructor(
    readonly path: string,
    readonly issues: readonly FieldIssue[],
  ) {
    super(`account registry ${path}: ${issues.map((i) => `${i.field}: ${i.rule}`).join('; ')}`);
  }
}

export const EMPTY_REGISTRY: RegistryDocument = {
  version: REGISTRY_VERSION,
  revision: 0,
  accounts: [],
  stores: [],
  skuMappings: [],
};

function fieldOf(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`))
    .join('');
}

/** The document in `text`, or a RegistryFileError naming each field and its rule. */
export function parseRegistry(path: string, text: string): RegistryDocument {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // The parser's message may quote the file (a secret): say the rule only.
    throw new RegistryFileError(path, [{ field: '(file)', rule: 'must be JSON' }]);
  }
  const parsed = RegistryDocument.safeParse(raw);
  if (!parsed.success) {
    throw new RegistryFileError(
      path,
      parsed.error.issues.map((i) => ({ field: fieldOf(i.path) || '(file)', rule: i.message })),
    );
  }
  return parsed.data;
}

/** The document at `path`; a missing file is an empty registry (revision 0). */
export async function readRegistry(path: string): Promise<RegistryDocument> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return EMPTY_REGISTRY;
    throw new RegistryFileError(path, [
      {
        field: '(file)',
        rule: `cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      },
    ]);
  }
  return parseRegistry(path, text);
}

// ---- secrets ---------------------------------------------------------------------------------

/** Encrypts and decrypts the registry's secrets with the payload codec's keys, or keeps them clear. */
export class SecretBox {
  constructor(readonly codec: EncryptionCodec | undefined) {}

  get encrypted(): boolean {
    return this.codec !== undefined;
  }

  async seal(secret: string): Promise<StoredSecret> {
    if (this.codec === undefined) return secret;
    const [payload] = await this.codec.encode([{ metadata: {}, data: Buffer.from(secret) }]);
    return {
      keyId: this.codec.keyId,
      ciphertext: Buffer.from(payload!.data ?? new Uint8Array()).toString('base64'),
    };
  }

  /** The secret in clear; `field` names it in the error when it cannot be read. */
  async open(stored: StoredSecret, field: string, path: string): Promise<string> {
    if (typeof stored === 'string') return stored;
    if (this.codec === undefined) {
      throw new RegistryFileError(path, [
        {
          field,
          rule: `is encrypted (key id "${stored.keyId}") and DROPFLOW_ENCRYPTION_KEY is not set`,
        },
      ]);
    }
    try {
      const [payload] = await this.codec.decode([
        {
          metadata: {
            [METADATA_ENCODING_KEY]: Buffer.from(ENCRYPTED_ENCODING),
            [KEY_ID_METADATA]: Buffer.from(stored.keyId),
          },
          data: Buffer.from(stored.ciphertext, 'base64'),
        },
      ]);
      return Buffer.from(payload!.data ?? new Uint8Array()).toString('utf8');
    } catch (err) {
      throw new RegistryFileError(path, [
        { field, rule: `cannot be decrypted: ${(err as Error).message}` },
      ]);
    }
  }
}

/** The accounts of a document with their secrets in clear. */
export async function openAccounts(
  path: string,
  doc: RegistryDocument,
  box: SecretBox,
): Promise<Account[]> {
  return Promise.all(
    doc.accounts.map(async (a, i) => {
      const at = (name: string) => `accounts[${i}].${name}`;
      const account: Account = {
        id: a.id,
        tier: a.tier,
        apiKey: await box.open(a.apiKey, at('apiKey'), path),
        intakeTokenSha256: a.intakeTokenSha256,
      };
      if (a.baseUrl !== undefined) account.baseUrl = a.baseUrl;
      if (a.storeEventsUrl !== undefined) account.storeEventsUrl = a.storeEventsUrl;
      if (a.sla !== undefined) account.sla = a.sla;
      if (a.margin !== undefined) account.margin = a.margin;
      if (a.openId !== undefined) account.openId = await box.open(a.openId, at('openId'), path);
      if (a.storeEventsSecret !== undefined) {
        account.storeEventsSecret = await box.open(
          a.storeEventsSecret,
          at('storeEventsSecret'),
          path,
        );
      }
      return account;
    }),
  );
}

/** SHA-256 (hex) of a store intake token, as `intakeTokenSha256` lists it. */
export function intakeTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

// ---- writing ---------------------------------------------------------------------------------

/** How long a writer waits for another's lock, and after how long a lock is taken as abandoned. */
const LOCK_WAIT_MS = 15_000;
const LOCK_STALE_MS = 30_000;

/** Writes `text` to `path` atomically: a temporary file beside it (0600), synced, renamed over. */
async function writeAtomically(path: string, text: string): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const file = await open(temp, 'wx', 0o600);
  try {
    await file.writeFile(text, 'utf8');
    await file.sync();
  } finally {
    await file.close();
  }
  try {
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

async function lock(path: string): Promise<() => Promise<void>> {
  const lockPath = `${path}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let wait = 10; ; wait = Math.min(wait * 2, 200)) {
    try {
      const file = await open(lockPath, 'wx', 0o600);
      await file.writeFile(`${process.pid}\n`);
      await file.close();
      return () => rm(lockPath, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const held = await stat(lockPath).catch(() => undefined);
    if (held !== undefined && Date.now() - held.mtimeMs > LOCK_STALE_MS) {
      // Left by a writer that died: nobody else may hold it that long.
      await rm(lockPath, { force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new RegistryFileError(path, [
        {
          field: '(file)',
          rule: `is locked by another writer (${lockPath}) for over ${LOCK_WAIT_MS / 1000} s; remove the lock file if no \`dropflow account\` command runs`,
        },
      ]);
    }
    await new Promise((settle) => setTimeout(settle, wait + Math.random() * wait));
  }
}

/**
 * Reads the registry under its lock, lets `change` edit it, and writes the result with the next
 * revision. `change` returns the new document, or undefined to leave the file as it is.
 */
export async function updateRegistry(
  path: string,
  change: (doc: RegistryDocument) => Promise<RegistryDocument | undefined>,
): Promise<RegistryDocument> {
  await mkdir(dirname(path), { recursive: true });
  const unlock = await lock(path);
  try {
    const current = await readRegistry(path);
    const next = await change(current);
    if (next === undefined) return current;
    const written = { ...next, version: REGISTRY_VERSION, revision: current.revision + 1 };
    // Checked like a read: a writer never leaves a file that readers would refuse.
    parseRegistry(path, JSON.stringify(written));
    // Without stores, the file stays as releases before them read it.
    const { stores, skuMappings, ...rest } = written;
    const text = {
      ...rest,
      ...(stores.length > 0 && { stores }),
      ...(skuMappings.length > 0 && { skuMappings }),
    };
    await writeAtomically(path, `${JSON.stringify(text, null, 2)}\n`);
    return written;
  } finally {
    await unlock();
  }
}
