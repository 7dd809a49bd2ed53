/**
 * A WooCommerce REST client over undici, authenticated with the consumer key and secret (HTTP
 * basic auth, as WooCommerce takes them over HTTPS). A 429 or 5xx answer to a read is tried again
 * after the Retry-After (or a short backoff) within a bound; a write is never sent again here —
 * it may have acted — and its caller looks before it writes again.
 */
import { StoreApiError, StoreFailure } from '../apiError.js';
import { StoreHttp, type JsonAnswer, type StoreHttpOptions } from '../http.js';
import { parseRetryAfter } from '../../net/retryAfter.js';

export interface WooAccess {
  /** The site's REST API v3 (`https://shop.example/wp-json/wc/v3`); paths are under `/wp-json`. */
  apiBaseUrl: string;
  consumerKey: string;
  consumerSecret: string;
}

export interface WooClientOptions extends StoreHttpOptions {
  /** The longest this client waits on 429/5xx for one read (default 10 s). */
  maxRetryWaitMs?: number;
}

interface WooErrorBody {
  code?: string;
  message?: string;
}

const DEFAULT_MAX_RETRY_WAIT_MS = 10_000;
const FIRST_BACKOFF_MS = 500;

export class WooRest {
  private readonly base: string;
  private readonly auth: string;
  private readonly http: StoreHttp;
  private readonly maxWaitMs: number;

  constructor(access: WooAccess, opts: WooClientOptions = {}) {
    // Paths name their namespace (`/wc/v3/…`, `/wc-shipment-tracking/v3/…`): the REST root.
    this.base = access.apiBaseUrl.replace(/\/+$/, '').replace(/\/wc\/v3$/, '');
    this.auth = `Basic ${Buffer.from(`${access.consumerKey}:${access.consumerSecret}`).toString('base64')}`;
    this.http = new StoreHttp(`woocommerce ${new URL(this.base).host}`, opts);
    this.maxWaitMs = opts.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS;
  }

  get host(): string {
    return new URL(this.base).host;
  }

  /** Requests sent (the bench counts store calls per order). */
  get requests(): number {
    return this.http.requests;
  }

  async get<T>(path: string): Promise<T> {
    return (await this.read(path)).body as T;
  }

  /**
   * One page of a collection (`/wc/v3/orders?…&page=n`) and how many pages it has: WooCommerce
   * says so in `X-WP-TotalPages` (absent: this page is the only one).
   */
  async page(path: string): Promise<{ items: unknown[]; totalPages: number }> {
    const { body, headers } = await this.read(path);
    const total = Number(headers['x-wp-totalpages']);
    return {
      items: Array.isArray(body) ? body : [],
      totalPages: Number.isInteger(total) ? total : 1,
    };
  }

  /** A read, tried again after a 429 or 5xx within `maxRetryWaitMs`. */
  private async read(path: string): Promise<JsonAnswer> {
    const wait = this.http.budget(this.maxWaitMs);
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.send('GET', path);
      } catch (err) {
        if (
          !(err instanceof StoreApiError) ||
          !(err.kind === StoreFailure.Throttled || err.kind === StoreFailure.Unavailable)
        )
          throw err;
        if (!(await wait(err.retryAfterMs ?? FIRST_BACKOFF_MS * 2 ** (attempt - 1)))) throw err;
      }
    }
  }

  async post<T>(path: string, body: unknown): Promise<T> {
    return (await this.send('POST', path, body)).body as T;
  }

  async put<T>(path: string, body: unknown): Promise<T> {
    return (await this.send('PUT', path, body)).body as T;
  }

  private async send(
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    body?: unknown,
  ): Promise<JsonAnswer> {
    const res = await this.http.json(`${this.base}${path}`, {
      method,
      headers: { authorization: this.auth },
      ...(body !== undefined && { body }),
    });
    if (res.status >= 200 && res.status < 300) return res;
    throw this.failure(
      method,
      path,
      res.status,
      res.body as WooErrorBody | undefined,
      parseRetryAfter(res.headers['retry-after']),
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
