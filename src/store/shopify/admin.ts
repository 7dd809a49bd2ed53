/**
 * A Shopify Admin GraphQL client over undici that keeps to the shop's cost-based throttle: it
 * reads `extensions.cost.throttleStatus` from every answer, waits before a request the bucket
 * cannot hold yet, and retries a THROTTLED answer (nothing was executed) after the time the bucket
 * needs to refill, within a bound; past it the caller hears `throttled` with the time to wait.
 * Nothing else is retried here: a mutation whose answer was lost may have acted, and its caller
 * looks before it sends again.
 */
import { StoreApiError, StoreFailure } from '../apiError.js';
import { StoreHttp, type StoreHttpOptions } from '../http.js';

export interface ShopifyAccess {
  /** `https://<shop>.myshopify.com/admin/api/<version>` (or a proxy, or the double). */
  apiBaseUrl: string;
  /** The version the base URL names (what Shopify's answer is compared with). */
  apiVersion: string;
  adminAccessToken: string;
}

export interface ShopifyClientOptions extends StoreHttpOptions {
  /** The longest this client waits for the bucket for one call (default 20 s). */
  maxThrottleWaitMs?: number;
}

export interface ThrottleStatus {
  maximumAvailable: number;
  currentlyAvailable: number;
  restoreRate: number;
}

export interface GraphqlResult<T> {
  data: T;
  /** The version Shopify served (it serves the oldest supported one for an unsupported version). */
  servedVersion?: string;
  throttle?: ThrottleStatus;
}

interface GraphqlBody<T> {
  data?: T;
  errors?: string | { message: string; extensions?: { code?: string; requiredAccess?: string } }[];
  extensions?: { cost?: { requestedQueryCost?: number; throttleStatus?: ThrottleStatus } };
}

const DEFAULT_MAX_THROTTLE_WAIT_MS = 20_000;
/** What a query is taken to cost before its first answer says. */
const FIRST_GUESS_COST = 50;

export class ShopifyAdmin {
  private readonly endpoint: URL;
  private readonly http: StoreHttp;
  private readonly maxWaitMs: number;
  private bucket: { status: ThrottleStatus; at: number } | undefined;
  private readonly costs = new Map<string, number>();

  constructor(
    private readonly access: ShopifyAccess,
    opts: ShopifyClientOptions = {},
  ) {
    this.endpoint = new URL(`${access.apiBaseUrl.replace(/\/+$/, '')}/graphql.json`);
    this.http = new StoreHttp(`shopify ${this.endpoint.host}`, opts);
    this.maxWaitMs = opts.maxThrottleWaitMs ?? DEFAULT_MAX_THROTTLE_WAIT_MS;
  }

  get host(): string {
    return this.endpoint.host;
  }

  /** GraphQL requests sent (the bench counts store calls per order). */
  get requests(): number {
    return this.http.requests;
  }

  /** Runs one query or mutation; throws a `StoreApiError` that names what went wrong. */
  async graphql<T>(
    query: string,
    variables: Record<string, unknown> = {},
  ): Promise<GraphqlResult<T>> {
    const wait = this.http.budget(this.maxWaitMs);
    for (;;) {
      const before = this.waitFor(this.costs.get(query) ?? FIRST_GUESS_COST);
      if (before > 0 && !(await wait(before))) throw this.throttled(before);
      const answer = await this.send<T>(query, variables);
      if (answer.throttledFor === undefined) return answer.result;
      if (!(await wait(answer.throttledFor))) throw this.throttled(answer.throttledFor);
    }
  }

  /** Ms until the bucket, as last seen, holds `cost` (0 when it does or is unknown). */
  private waitFor(cost: number): number {
    if (this.bucket === undefined) return 0;
    const { status, at } = this.bucket;
    const now = status.currentlyAvailable + ((Date.now() - at) / 1000) * status.restoreRate;
    const need = Math.min(cost, status.maximumAvailable);
    return now >= need ? 0 : Math.ceil(((need - now) / status.restoreRate) * 1000);
  }

  private throttled(retryInMs: number): StoreApiError {
    return new StoreApiError(
      StoreFailure.Throttled,
      `shopify ${this.host}: throttled (the shop's API bucket is empty)`,
      undefined,
      retryInMs,
    );
  }

  private async send<T>(
    query: string,
    variables: Record<string, unknown>,
  ): Promise<{ result: GraphqlResult<T>; throttledFor?: undefined } | { throttledFor: number }> {
    const res = await this.http.json(this.endpoint, {
      method: 'POST',
      headers: { 'x-shopify-access-token': this.access.adminAccessToken },
      body: { query, variables },
    });
    const { status } = res;
    const v = res.headers['x-shopify-api-version'];
    const served = typeof v === 'string' ? v : undefined;
    const body = res.body as GraphqlBody<T> | undefined;
    if (status !== 200) throw this.httpFailure(status, body);
    const cost = body?.extensions?.cost;
    if (cost?.throttleStatus !== undefined)
      this.bucket = { status: cost.throttleStatus, at: Date.now() };
    if (cost?.requestedQueryCost !== undefined) this.costs.set(query, cost.requestedQueryCost);
    const errors = Array.isArray(body?.errors) ? body.errors : [];
    if (errors.some((e) => e.extensions?.code === 'THROTTLED' || e.message === 'Throttled')) {
      const need = cost?.requestedQueryCost ?? FIRST_GUESS_COST;
      return { throttledFor: Math.max(1000, this.waitFor(need)) };
    }
    if (errors.length > 0) throw this.graphqlFailure(errors);
    if (body?.data === undefined)
      throw new StoreApiError(
        StoreFailure.Unavailable,
        `shopify ${this.host}: an answer without data`,
        status,
      );
    return {
      result: {
        data: body.data,
        ...(served !== undefined && { servedVersion: served }),
        ...(cost?.throttleStatus !== undefined && { throttle: cost.throttleStatus }),
      },
    };
  }

  private httpFailure(status: number, body: GraphqlBody<unknown> | undefined): StoreApiError {
    const said = typeof body?.errors === 'string' ? `: ${body.errors}` : '';
    const at = `shopify ${this.host}`;
    if (status === 401)
      return new StoreApiError(
        StoreFailure.Auth,
        `${at} refused the access token (HTTP 401)${said}`,
        status,
      );
    if (status === 403)
      return new StoreApiError(
        StoreFailure.Scope,
        `${at} refused: the app lacks a permission (HTTP 403)${said}`,
        status,
      );
    if (status === 404)
      return new StoreApiError(
        StoreFailure.Version,
        `${at}: no Admin API at version ${this.access.apiVersion} (HTTP 404)`,
        status,
      );
    if (status === 402 || status === 423)
      return new StoreApiError(
        StoreFailure.Auth,
        `${at}: the shop is ${status === 402 ? 'frozen (unpaid)' : 'locked'} (HTTP ${status})`,
        status,
      );
    if (status === 429)
      return new StoreApiError(StoreFailure.Throttled, `${at}: HTTP 429`, status, 2000);
    return new StoreApiError(StoreFailure.Unavailable, `${at} answered HTTP ${status}`, status);
  }

  private graphqlFailure(
    errors: { message: string; extensions?: { code?: string } }[],
  ): StoreApiError {
    const denied = errors.find((e) => e.extensions?.code === 'ACCESS_DENIED');
    if (denied !== undefined)
      return new StoreApiError(StoreFailure.Scope, `shopify ${this.host}: ${denied.message}`);
    return new StoreApiError(
      StoreFailure.Rejected,
      `shopify ${this.host}: ${errors.map((e) => e.message).join('; ')}`,
    );
  }
}
