/**
 * How the workers deliver store events (docs/store-events.md): the delivery options, and the
 * signing secret's format that the environment (STORE_EVENTS_SECRET), the account registry (an
 * account's own secret), the signer and the verifying client check against. They live below all
 * of them. Sandbox-safe: no Node API, no imports.
 */

/** How the workers deliver store events (STORE_EVENTS_URL, STORE_EVENTS_SECRET, …). */
export interface StoreEventsOptions {
  /** Where to POST; without one every event answers `off` and the workflow stops emitting. */
  url?: string;
  /** `whsec_<base64>`; several, space-separated, while a secret is rotated (each one signs). */
  secret?: string;
  /** Per attempt (default 10 s). */
  timeoutMs?: number;
  /** The first retry's delay (default 5 s); doubling up to `retryMaxMs` (default 1 h). */
  retryFirstMs?: number;
  retryMaxMs?: number;
}

// ---- the signing secret --------------------------------------------------------------------

/** What a store events secret must look like (said in errors instead of the value). */
export const STORE_SECRET_RULE =
  'must be whsec_ followed by the base64 of 24 to 64 random bytes ' +
  '(e.g. whsec_$(openssl rand -base64 32)); several, separated by spaces, while rotating';

const SECRET_PREFIX = 'whsec_';
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;

export class StoreSecretError extends Error {
  override readonly name = 'StoreSecretError';
}

function isSecret(secret: string): boolean {
  if (!secret.startsWith(SECRET_PREFIX)) return false;
  const key = secret.slice(SECRET_PREFIX.length);
  if (!BASE64.test(key)) return false;
  // Bytes of canonical base64 (as BASE64 checked): 3 per 4 characters, less the padding.
  const bytes = (key.length / 4) * 3 - (key.endsWith('==') ? 2 : key.endsWith('=') ? 1 : 0);
  return bytes >= MIN_KEY_BYTES && bytes <= MAX_KEY_BYTES;
}

/**
 * The secrets of a STORE_EVENTS_SECRET value (space-separated, at least one). Throws a
 * `StoreSecretError` that names the position and the rule, never the text.
 */
export function parseStoreSecrets(value: string): string[] {
  const secrets = value.split(/\s+/).filter((s) => s !== '');
  if (secrets.length === 0) throw new StoreSecretError(STORE_SECRET_RULE);
  for (const [i, secret] of secrets.entries()) {
    if (!isSecret(secret)) {
      throw new StoreSecretError(
        secrets.length === 1 ? STORE_SECRET_RULE : `secret ${i + 1} ${STORE_SECRET_RULE}`,
      );
    }
  }
  return secrets;
}
