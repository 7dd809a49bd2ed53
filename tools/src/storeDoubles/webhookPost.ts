/**
 * One webhook POST of a store double to the delivery URL its test or `dropflow dev` configured,
 * with the platform's headers. Recorded with its answer, so that a test can look at what was sent.
 */
import { createHmac } from 'node:crypto';

import { request } from 'undici';

export interface SentWebhook {
  topic: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The receiver's HTTP status, or undefined when it was not reached. */
  status?: number;
  error?: string;
  at: string;
}

/** HMAC-SHA256 of the raw body, base64: the signature both platforms send. */
export function bodySignature(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('base64');
}

export async function postWebhook(
  url: string,
  topic: string,
  body: string,
  headers: Record<string, string>,
): Promise<SentWebhook> {
  const sent: SentWebhook = { topic, url, headers, body, at: new Date().toISOString() };
  try {
    const res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    await res.body.dump();
    sent.status = res.statusCode;
  } catch (err) {
    sent.error = err instanceof Error ? err.message : String(err);
  }
  return sent;
}
