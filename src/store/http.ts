/**
 * What both store clients share: one JSON call over undici within a per-call deadline and a cap
 * on the answer's size (a network failure or a larger answer becomes an `unavailable`
 * StoreApiError that names the host, never the URL), a count of the calls sent, and a bounded
 * budget for the waits before a call is tried again. Which answers a client may try again is its
 * own business: a write whose answer was lost may have acted.
 */
import { Agent, request } from 'undici';

import { unreachable } from './apiError.js';

export interface StoreHttpOptions {
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

export interface JsonCall {
  method: 'GET' | 'POST' | 'PUT';
  headers: Record<string, string>;
  body?: unknown;
}

export interface JsonAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed body; undefined when it was not JSON. */
  body: unknown;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * 8 MiB: a page of 100 WooCommerce orders or a Shopify answer is well under 1 MiB. A larger body
 * is not read on (undici stops at the cap): a store's site, which anyone can set up, cannot make
 * the shared worker's memory grow with it.
 */
export const MAX_STORE_RESPONSE_BYTES = 8 * 1024 * 1024;

/** Every store call's connections: the global dispatcher's, but with the cap. */
const capped = new Agent({ maxResponseSize: MAX_STORE_RESPONSE_BYTES });

export class StoreHttp {
  private readonly timeoutMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Calls sent (the bench counts store calls per order). */
  requests = 0;

  /** `who` names the platform and host in errors (`shopify shop.myshopify.com`). */
  constructor(
    private readonly who: string,
    opts: StoreHttpOptions = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  async json(url: string | URL, call: JsonCall): Promise<JsonAnswer> {
    this.requests += 1;
    try {
      const res = await request(url, {
        method: call.method,
        headers: {
          accept: 'application/json',
          ...(call.body !== undefined && { 'content-type': 'application/json' }),
          ...call.headers,
        },
        ...(call.body !== undefined && { body: JSON.stringify(call.body) }),
        signal: AbortSignal.timeout(this.timeoutMs),
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        dispatcher: capped,
      });
      // Read as text first: a body cut off at the cap (or the deadline) is a failure, not "no JSON".
      const text = await res.body.text();
      return { status: res.statusCode, headers: res.headers, body: parseJson(text) };
    } catch (err) {
      throw unreachable(this.who, err, this.timeoutMs, MAX_STORE_RESPONSE_BYTES);
    }
  }

  /**
   * A bound of `maxMs` on the waits of one call and its tries again: the returned `wait(ms)`
   * sleeps and says true, or says false at once when that would pass the bound.
   */
  budget(maxMs: number): (ms: number) => Promise<boolean> {
    let waited = 0;
    return async (ms) => {
      if (waited + ms > maxMs) return false;
      waited += ms;
      await this.sleep(ms);
      return true;
    };
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
