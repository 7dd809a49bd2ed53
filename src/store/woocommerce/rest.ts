/**
 * A WooCommerce REST client over undici, authenticated with the consumer key and secret (HTTP
 * basic auth, as WooCommerce takes them over HTTPS). A 429 or 5xx answer to a read is tried again
 * after the Retry-After (or a short backoff) within a bound; a write is never sent again here —
 * it may have acted — and its caller looks before it writes again.
 */
import { request } from 'undici';

import { StoreApiError, StoreFailure, unreachable } from '../apiError.js';
import { parseRetryAfter } from '../../storeEvents/sending.js';

export interface WooAccess {
  /** The site's REST API v3 (`https://shop.example/wp-json/wc/v3`); paths are under `/wp-json`. */
  apiBaseUrl: string;
  consumerKey: string;
  consumerSecret: string;
}

export interface WooClientOptions {
  timeoutMs?: number;
  /** The longest this client waits on 429/5xx for one read (default 10 s). */
  maxRetryWaitMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

interface WooErrorBody {
  code?: string;
  message?: string;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RETRY_WAIT_MS = 10_000;
const FIRST_BACKOFF_MS = 500;

export class WooRest {
  private readonly base: string;
  private readonly auth: string;
  private readonly timeoutMs: number;
  private readonly maxWaitMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  /** Requests sent (the bench counts store calls per order). */
  requests = 0;

  constructor(access: WooAccess, opts: WooClientOptions = {}) {
    // Paths name their namespace (`/wc/v3/…`, `/wc-shipment-tracking/v3/…`): the REST root.
    this.base = access.apiBaseUrl.replace(/\/+$/, '').replace(/\/wc\/v3$/, '');
    this.auth = `Basic ${Buffer.from(`${access.consumerKey}:${access.consumerSecret}`).toString('base64')}`;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxWaitMs = opts.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  get host(): string {
    return new URL(this.base).host;
  }

  async get<T>(path: string): Promise<T> {
    let waited = 0;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.send<T>('GET', path);
      } catch (err) {
        if (
          !(err instanceof StoreApiError) ||
          !(err.kind === StoreFailure.Throttled || err.kind === StoreFailure.Unavailable)
        )
          throw err;
        const wait = err.retryAfterMs ?? FIRST_BACKOFF_MS * 2 ** (attempt - 1);
        if (waited + wait > this.maxWaitMs) throw err;
        waited += wait;
        await this.sleep(wait);
      }
    }
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.send<T>('POST', path, body);
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.send<T>('PUT', path, body);
  }

  private async send<T>(method: string, path: string, body?: unknown): Promise<T> {
    const signal = AbortSignal.timeout(this.timeoutMs);
    this.requests += 1;
    let status: number;
    let answer: unknown;
    let retryAfter: string | string[] | undefined;
    try {
      const res = await request(`${this.base}${path}`, {
        method: method as 'GET',
        headers: {
          authorization: this.auth,
          accept: 'application/json',
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal,
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
      });
      status = res.statusCode;
      retryAfter = res.headers['retry-after'];
      answer = await res.body.json().catch(() => undefined);
    } catch (err) {
      throw unreachable(`woocommerce ${this.host}`, err, this.timeoutMs);
    }
    if (status >= 200 && status < 300) return answer as T;
    throw this.failure(
      method,
      path,
      status,
      answer as WooErrorBody | undefined,
      parseRetryAfter(retryAfter),
    );
  }

  private failure(
    method: string,
    path: string,
    status: number,
    body: WooErrorBody | undefined,
    retryAfterMs?: number,
  ): StoreApiError {
    const at = `woocommerce ${this.host}`;
    const said = body?.message === undefined ? '' : `: ${body.message}`;
    const what = `${method} ${path.split('?')[0]}`;
    if (status === 401 || status === 403) {
      // WooCommerce says a key's missing read/write permission with a 401 too.
      const scope = status === 403 || /permission|not allowed|cannot/i.test(body?.message ?? '');
      return new StoreApiError(
        scope ? StoreFailure.Scope : StoreFailure.Auth,
        scope
          ? `${at} refused ${what}: the key lacks a permission (HTTP ${status})${said}`
          : `${at} refused the consumer key (HTTP ${status})${said}`,
        status,
      );
    }
    if (status === 404) {
      const kind = body?.code === 'rest_no_route' ? StoreFailure.Version : StoreFailure.NotFound;
      return new StoreApiError(
        kind,
        `${at}: ${what} not found (HTTP 404${body?.code === undefined ? '' : `, ${body.code}`})`,
        status,
      );
    }
    if (status === 429)
      return new StoreApiError(
        StoreFailure.Throttled,
        `${at}: too many requests (HTTP 429)`,
        status,
        retryAfterMs ?? 1000,
      );
    if (status >= 500)
      return new StoreApiError(
        StoreFailure.Unavailable,
        `${at} answered HTTP ${status}`,
        status,
        retryAfterMs,
      );
    return new StoreApiError(
      StoreFailure.Rejected,
      `${at} refused ${what} (HTTP ${status})${said}`,
      status,
    );
  }
}
