/**
 * The headers of one store event delivery, signed as the Standard Webhooks specification says,
 * with the specification's own library: `webhook-id`, `webhook-timestamp` (seconds) and
 * `webhook-signature` (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per secret).
 */
import { Webhook } from 'standardwebhooks';

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
  const bytes = Buffer.from(key, 'base64').length;
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

/**
 * The request headers of one delivery attempt: the event's id (the same on every attempt), this
 * attempt's time, and one signature per secret of `secret` (space-separated).
 */
export function storeEventHeaders(
  id: string,
  timestamp: Date,
  body: string,
  secret: string,
): Record<string, string> {
  const signatures = parseStoreSecrets(secret).map((s) => new Webhook(s).sign(id, timestamp, body));
  return {
    'content-type': 'application/json',
    'user-agent': 'dropflow',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
}
