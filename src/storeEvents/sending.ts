/**
 * One signed POST of one store event to the store: what the delivery activity and
 * `dropflow events replay` both send. Signing (src/storeEvents/signing.ts) follows the Standard
 * Webhooks specification with its own library.
 */
import type { IncomingHttpHeaders } from 'node:http';

import { request } from 'undici';

import { parseRetryAfter } from '../net/retryAfter.js';
import type { StoreEvent } from './contract.js';
import { storeEventHeaders } from './signing.js';

export interface StoreTarget {
  url: string;
  /** `whsec_<base64>`; several, space-separated, during a rotation (each one signs). */
  secret: string;
  /** Per request (default 10 s). */
  timeoutMs?: number;
}

export type SendResult =
  | { ok: true; status: number }
  | {
      ok: false;
      /** The store's HTTP status, when it answered. */
      status?: number;
      /** For the operator: the store's host and what happened; never the secret or URL query. */
      message: string;
      /** The store's Retry-After, in ms, when it sent one. */
      retryAfterMs?: number;
    };

export const DEFAULT_STORE_TIMEOUT_MS = 10_000;

/** The store's answer is not needed: read at most this much of it, then drop the connection. */
const ANSWER_LIMIT_BYTES = 64 * 1024;

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * POSTs `event` (its JSON is the body) to `target.url`, signed with every secret of
 * `target.secret`. Resolves with what happened; throws only for a bad target (URL or secret),
 * which configuration validates first.
 */
export async function sendStoreEvent(target: StoreTarget, event: StoreEvent): Promise<SendResult> {
  const timeoutMs = target.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  const url = new URL(target.url);
  const prefix = `store events: ${url.host}`;
  const body = JSON.stringify(event);
  const headers = storeEventHeaders(event.id, new Date(), body, target.secret);
  // One deadline for connecting, the answer's headers and reading its body.
  const signal = AbortSignal.timeout(timeoutMs);
  let status: number;
  let answerHeaders: IncomingHttpHeaders;
  try {
    const res = await request(url, {
      method: 'POST',
      headers,
      body,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      signal,
    });
    status = res.statusCode;
    answerHeaders = res.headers;
    // The status decides; a body that does not come in time is dropped with its connection.
    await res.body.dump({ limit: ANSWER_LIMIT_BYTES, signal }).catch(() => undefined);
  } catch (err) {
    if (signal.aborted || TIMEOUT_CODES.has(errorCode(err) ?? '')) {
      return { ok: false, message: `${prefix} no answer within ${duration(timeoutMs)}` };
    }
    return { ok: false, message: `${prefix} not reached: ${reasonOf(err)}` };
  }
  if (status >= 200 && status < 300) return { ok: true, status };
  const retryAfterMs = parseRetryAfter(answerHeaders['retry-after']);
  return {
    ok: false,
    status,
    message: `${prefix} answered HTTP ${status}`,
    ...(retryAfterMs !== undefined && { retryAfterMs }),
  };
}

function errorCode(err: unknown): string | undefined {
  // Connection errors may come wrapped: the socket's error is then a cause.
  let current = err;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth += 1) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (typeof code === 'string' && code !== '') return code;
    current = cause;
  }
  return undefined;
}

function reasonOf(err: unknown): string {
  return errorCode(err) ?? (err instanceof Error ? err.message : String(err));
}

function duration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
