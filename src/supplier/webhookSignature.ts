/**
 * The `sign` header of pushed webhooks (docs/supplier-api.md §12.3): Base64(HMAC-SHA256(key = the
 * account's openId as a string, message = the raw request body)).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export function signWebhook(openId: string, rawBody: string | Uint8Array): string {
  return createHmac('sha256', openId).update(rawBody).digest('base64');
}

/**
 * Whether `sign` is the signature of exactly these body bytes. Give it the body as received, before
 * any JSON parsing: re-serialising changes the bytes and breaks the signature.
 */
export function verifyWebhookSignature(
  openId: string,
  rawBody: string | Uint8Array,
  sign: string | null | undefined,
): boolean {
  if (typeof sign !== 'string' || sign === '') return false;
  const expected = Buffer.from(signWebhook(openId, rawBody), 'utf8');
  const given = Buffer.from(sign, 'utf8');
  // timingSafeEqual needs equal lengths; a length mismatch reveals nothing about the key.
  return given.length === expected.length && timingSafeEqual(given, expected);
}
