/**
 * The headers of one store event delivery, signed as the Standard Webhooks specification says,
 * with the specification's own library: `webhook-id`, `webhook-timestamp` (seconds) and
 * `webhook-signature` (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per secret).
 */
import { Webhook } from 'standardwebhooks';

import { parseStoreSecrets } from '../terms/storeEventsSettings.js';

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
