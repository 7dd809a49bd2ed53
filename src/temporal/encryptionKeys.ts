/**
 * Where the payload keys come from: the environment (DROPFLOW_ENCRYPTION_KEY, its id, and
 * DROPFLOW_DECRYPTION_KEYS for rotation), or the key `dropflow dev` keeps in its data directory so
 * that local state stays readable across restarts. Key material is never logged.
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { ConfigError, type Config } from '../config/environment.js';
import { EncryptionCodec, KEY_BYTES, type KeyRing } from './encryption.js';

/** The file `dropflow dev` keeps its key in, under the data directory. */
export const DEV_KEY_FILE = 'encryption.key';
/** The key id of the dev key (its payloads say `encryption-key-id: dev`). */
export const DEV_KEY_ID = 'dev';

/** The configured keys; undefined when DROPFLOW_ENCRYPTION_KEY is unset. */
export function keyRingFromConfig(config: Config): KeyRing | undefined {
  if (config.DROPFLOW_ENCRYPTION_KEY === undefined) {
    if (config.DROPFLOW_DECRYPTION_KEYS !== undefined) {
      throw new ConfigError(
        'invalid environment: DROPFLOW_DECRYPTION_KEYS: needs DROPFLOW_ENCRYPTION_KEY (the current key)',
      );
    }
    return undefined;
  }
  return {
    current: {
      id: config.DROPFLOW_ENCRYPTION_KEY_ID,
      key: Buffer.from(config.DROPFLOW_ENCRYPTION_KEY, 'base64'),
    },
    previous: (config.DROPFLOW_DECRYPTION_KEYS ?? []).map(({ id, key }) => ({
      id,
      key: Buffer.from(key, 'base64'),
    })),
  };
}

/**
 * The dev key in `dataDir`: read when the file exists; otherwise made (32 random bytes, base64,
 * mode 0600) with `create`, or undefined.
 */
export async function devKeyRing(
  dataDir: string,
  { create = false } = {},
): Promise<KeyRing | undefined> {
  const path = join(dataDir, DEV_KEY_FILE);
  let text = await readFile(path, 'utf8').catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  });
  if (text === undefined) {
    if (!create) return undefined;
    text = randomBytes(KEY_BYTES).toString('base64');
    try {
      await writeFile(path, `${text}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another process made it first: use theirs.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      text = await readFile(path, 'utf8');
    }
  }
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== KEY_BYTES) {
    throw new ConfigError(`${path} does not hold the base64 of ${KEY_BYTES} bytes`);
  }
  return { current: { id: DEV_KEY_ID, key } };
}

export function codecFor(ring: KeyRing | undefined): EncryptionCodec | undefined {
  return ring === undefined ? undefined : new EncryptionCodec(ring);
}
