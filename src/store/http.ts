/**
 * What both store clients share: one JSON call over undici within a per-call deadline (a network
 * failure becomes an `unavailable` StoreApiError that names the host, never the URL), a count of
 * the calls sent, and a bounded budget for the waits before a call is tried again. Which answers
 * a client may try again is its own business: a write whose answer was lost may have acted.
 */
import { request } from 'undici';

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
      });
      const body: unknown = await res.body.json().catch(() => undefined);
      return { status: res.statusCode, headers: res.headers, body };
    } catch (err) {
      throw unreachable(this.who, err, this.timeoutMs);
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
