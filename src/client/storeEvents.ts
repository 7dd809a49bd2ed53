/**
 * For the store's developers: checking that a request really is a store event from dropflow, and
 * reading it. Every event is one POST signed as the Standard Webhooks specification says; the
 * check uses the specification's own library.
 *
 * ```ts
 * import { verifyStoreEvent, StoreEventVerificationError } from 'dropflow/client';
 *
 * // raw: the request body exactly as received (string or bytes), before any JSON parsing
 * const event = verifyStoreEvent(req.headers, raw, process.env.STORE_EVENTS_SECRET);
 * // answer 2xx quickly; the same event.id may arrive again (deduplicate by it)
 * ```
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

import { STORE_EVENT_TYPES, type StoreEvent } from '../storeEvents/contract.js';
import { parseStoreSecrets } from '../terms/storeEventsSettings.js';

export * from '../storeEvents/contract.js';
export * from '../terms/storeEventsSettings.js';

/** A request that is not a valid, signed store event: answer it 4xx and do nothing. */
export class StoreEventVerificationError extends Error {
  override readonly name = 'StoreEventVerificationError';
}

/** Node's `req.headers` (any case, values string or string[]) or a fetch `Headers`. */
export type StoreEventHeaders =
  Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

const ID = 'webhook-id';
const TIMESTAMP = 'webhook-timestamp';
const SIGNATURE = 'webhook-signature';

/**
 * Checks the request's signature with `secret` (`whsec_…`; several space-separated during a
 * rotation, any one may match) and its timestamp (at most 5 minutes from now either way), then
 * the body's shape; returns the event. Throws `StoreEventVerificationError` saying what is wrong,
 * and `StoreSecretError` when `secret` itself is malformed.
 */
export function verifyStoreEvent(
  headers: StoreEventHeaders,
  rawBody: string | Uint8Array,
  secret: string,
): StoreEvent {
  const secrets = parseStoreSecrets(secret);
  const signed = {
    [ID]: header(headers, ID),
    [TIMESTAMP]: header(headers, TIMESTAMP),
    [SIGNATURE]: header(headers, SIGNATURE),
  };
  const missing = Object.entries(signed)
    .filter(([, value]) => value === undefined || value === '')
    .map(([name]) => name);
  if (missing.length > 0) fail(`missing header ${missing.join(', ')}`);
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  const present = signed as Record<typeof ID | typeof TIMESTAMP | typeof SIGNATURE, string>;
  if (!secrets.some((s) => signatureMatches(new Webhook(s), body, present))) {
    fail('no signature in webhook-signature matches the secret');
  }
  return checkEvent(body, present[ID]);
}

function signatureMatches(
  webhook: Webhook,
  body: string,
  headers: Record<string, string>,
): boolean {
  try {
    webhook.verify(body, headers, { jsonParse: false });
    return true;
  } catch (err) {
    if (!(err instanceof WebhookVerificationError)) throw err;
    switch (err.message) {
      case 'No matching signature found':
        return false;
      case 'Message timestamp too old':
        return fail('webhook-timestamp is more than 5 minutes in the past (a replayed request?)');
      case 'Message timestamp too new':
        return fail('webhook-timestamp is more than 5 minutes in the future');
      case 'Invalid Signature Headers':
        return fail('webhook-timestamp must be seconds since the epoch');
      default:
        return fail(err.message);
    }
  }
}

/** The body's shape, once the signature says dropflow sent it. */
function checkEvent(body: string, id: string): StoreEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return fail('the body must be JSON');
  }
  if (!isObject(parsed)) return fail('the body must be a JSON object');
  if (parsed['id'] !== id) fail('id must equal the webhook-id header');
  const type = parsed['type'];
  if (typeof type !== 'string' || !(STORE_EVENT_TYPES as readonly string[]).includes(type)) {
    fail(`type must be one of ${STORE_EVENT_TYPES.join(', ')}`);
  }
  if (!isText(parsed['orderNumber'])) fail('orderNumber must be a non-empty string');
  const occurredAt = parsed['occurredAt'];
  if (!isText(occurredAt) || Number.isNaN(Date.parse(occurredAt))) {
    fail('occurredAt must be an ISO 8601 date and time');
  }
  if (!isText(parsed['stage'])) fail('stage must be a non-empty string');
  if (!isObject(parsed['data'])) fail('data must be a JSON object');
  return parsed as unknown as StoreEvent;
}

function header(headers: StoreEventHeaders, name: string): string | undefined {
  if (isFetchHeaders(headers)) return headers.get(name) ?? undefined;
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    if (typeof value === 'string') values.push(value);
    else values.push(...value);
  }
  // A header sent more than once: its signatures are all candidates; an id or time must be one.
  if (values.length > 1 && name !== SIGNATURE && new Set(values).size > 1) {
    fail(`header ${name} appears more than once with different values`);
  }
  return values.length === 0 ? undefined : name === SIGNATURE ? values.join(' ') : values[0];
}

function isFetchHeaders(headers: StoreEventHeaders): headers is Headers {
  return typeof (headers as { get?: unknown }).get === 'function';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

function fail(reason: string): never {
  throw new StoreEventVerificationError(`store event rejected: ${reason}`);
}
