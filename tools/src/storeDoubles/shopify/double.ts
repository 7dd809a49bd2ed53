/**
 * The Shopify double: one shop's Admin GraphQL API at `/admin/api/<version>/graphql.json` with
 * Shopify's authentication (`X-Shopify-Access-Token`), version handling (an unsupported version is
 * served by the oldest supported one, and `X-Shopify-API-Version` says which), cost-based
 * throttling (a leaky bucket, `extensions.cost`, THROTTLED errors), and its webhooks. The state and
 * the switches a test needs are on `ShopifyDouble`; `/__shopify/*` offers them over HTTP.
 */
import {
  execute,
  Kind,
  OperationTypeNode,
  parse,
  validate,
  type DocumentNode,
  type GraphQLError,
} from 'graphql';

import { LeakyBucket } from '../leakyBucket.js';
import type { SentWebhook } from '../webhookPost.js';
import { actualCost, requestedCost, rootFields } from './cost.js';
import { rootValue, schema } from './schema.js';
import { ShopifyShop, type NewShopOrder, type ShopOrder } from './shop.js';
import { newDelivery, sendDelivery, type ShopifyDelivery, type ShopifyTopic } from './webhooks.js';

export const SHOPIFY_VERSIONS = ['2025-01', '2025-04', '2025-07', '2025-10'] as const;

/** What a fulfilment app asks for (docs/store-shopify.md). */
export const SHOPIFY_DEFAULT_SCOPES = [
  'read_orders',
  'write_orders',
  'read_merchant_managed_fulfillment_orders',
  'write_merchant_managed_fulfillment_orders',
  'write_fulfillments',
];

export interface ShopifyDoubleOptions {
  shopDomain?: string;
  accessToken?: string;
  clientSecret?: string;
  scopes?: string[];
  /** Where order webhooks go; none: they are kept and sent once one is set. */
  webhookUrl?: string;
  /** The app's webhook API version (`X-Shopify-API-Version` of webhooks). */
  apiVersion?: string;
  /** The bucket: 1000 points restoring 50 a second, as a standard shop's. */
  bucketSize?: number;
  restoreRate?: number;
  /** The first id it gives (orders, line items, fulfillments); default 5000000001. */
  firstId?: number;
}

export interface GraphqlAnswer {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  /** The request acted, and its answer must be lost (the connection dropped). */
  loseAnswer: boolean;
}

export interface ShopifyStats {
  requests: number;
  throttled: number;
  unauthorized: number;
  /** Requests that acted and lost their answer (`loseAnswer`). */
  lostAnswers: number;
  byField: Record<string, number>;
}

/** Shopify refuses any single query that would cost more. */
const MAX_QUERY_COST = 1000;

const INVALID_TOKEN =
  '[API] Invalid API key or access token (unrecognized login or wrong password)';

export class ShopifyDouble {
  readonly shop: ShopifyShop;
  readonly shopDomain: string;
  readonly clientSecret: string;
  readonly apiVersion: string;
  readonly bucket: LeakyBucket;
  readonly sent: SentWebhook[] = [];
  readonly stats: ShopifyStats = {
    requests: 0,
    throttled: 0,
    unauthorized: 0,
    lostAnswers: 0,
    byField: {},
  };
  webhookUrl: string | undefined;
  private token: string;
  private revoked = false;
  private scopes: Set<string>;
  private throttleNext = 0;
  private readonly loseAnswers = new Map<string, number>();
  private readonly deliveries = new Map<number, ShopifyDelivery[]>();

  constructor(opts: ShopifyDoubleOptions = {}) {
    this.shop = new ShopifyShop(opts.firstId);
    this.shopDomain = opts.shopDomain ?? 'dropflow-double.myshopify.com';
    this.token = opts.accessToken ?? 'shpat_double';
    this.clientSecret = opts.clientSecret ?? 'double-client-secret';
    this.apiVersion = opts.apiVersion ?? SHOPIFY_VERSIONS[SHOPIFY_VERSIONS.length - 1]!;
    this.scopes = new Set(opts.scopes ?? SHOPIFY_DEFAULT_SCOPES);
    this.webhookUrl = opts.webhookUrl;
    this.bucket = new LeakyBucket(opts.bucketSize ?? 1000, opts.restoreRate ?? 50);
  }

  // ---- the controls ---------------------------------------------------------------------------

  /** A customer orders: `orders/create` is sent (and `orders/paid` for a paid order). */
  async createOrder(spec: NewShopOrder): Promise<ShopOrder> {
    const order = this.shop.createOrder(spec);
    await this.fire('orders/create', order);
    if (order.financialStatus === 'paid') await this.fire('orders/paid', order);
    return order;
  }

  async pay(orderId: number): Promise<void> {
    const order = this.shop.markPaid(orderId);
    if (order !== undefined) await this.fire('orders/paid', order);
  }

  async cancel(orderId: number, reason = 'customer'): Promise<void> {
    const order = this.shop.cancel(orderId, reason);
    if (order !== undefined) await this.fire('orders/cancelled', order);
  }

  /** Sends an order's last delivery of `topic` again: same event and webhook ids. */
  async redeliver(
    orderId: number,
    topic: ShopifyTopic = 'orders/create',
  ): Promise<SentWebhook | undefined> {
    const d = (this.deliveries.get(orderId) ?? []).filter((x) => x.topic === topic).at(-1);
    return d === undefined ? undefined : this.send(d);
  }

  revokeToken(): void {
    this.revoked = true;
  }

  /** Restores the token, or installs a new one (the merchant made a new one). */
  restoreToken(newToken?: string): void {
    this.revoked = false;
    if (newToken !== undefined) this.token = newToken;
  }

  setScopes(scopes: string[]): void {
    this.scopes = new Set(scopes);
  }

  removeScope(scope: string): void {
    this.scopes.delete(scope);
  }

  /** The next `n` GraphQL requests are THROTTLED whatever the bucket holds. */
  throttle(n: number): void {
    this.throttleNext = n;
  }

  /** The next `times` requests whose root field is `field` act, then lose their answer. */
  loseAnswer(field: string, times = 1): void {
    this.loseAnswers.set(field, times);
  }

  order(id: number): ShopOrder | undefined {
    return this.shop.orders.get(id);
  }

  // ---- the API --------------------------------------------------------------------------------

  /** One POST to graphql.json. */
  graphql(version: string, token: string | undefined, body: unknown): GraphqlAnswer {
    this.stats.requests += 1;
    const used = (SHOPIFY_VERSIONS as readonly string[]).includes(version)
      ? version
      : SHOPIFY_VERSIONS[0];
    const headers = { 'x-shopify-api-version': used };
    const answer = (status: number, b: unknown, lose = false): GraphqlAnswer => ({
      status,
      body: b,
      headers,
      loseAnswer: lose,
    });
    if (token === undefined || token !== this.token || this.revoked) {
      this.stats.unauthorized += 1;
      return answer(401, { errors: INVALID_TOKEN });
    }
    const { query, variables = {} } = (body ?? {}) as {
      query?: unknown;
      variables?: Record<string, unknown>;
    };
    if (typeof query !== 'string')
      return answer(400, { errors: { query: 'Required parameter missing or invalid' } });
    let doc: DocumentNode;
    try {
      doc = parse(query);
    } catch (err) {
      return answer(200, { errors: [{ message: (err as GraphQLError).message }] });
    }
    const invalid = validate(schema, doc);
    if (invalid.length > 0) return answer(200, { errors: invalid.map((e) => e.toJSON()) });
    return this.run(doc, variables, answer);
  }

  private run(
    doc: DocumentNode,
    variables: Record<string, unknown>,
    answer: (status: number, b: unknown, lose?: boolean) => GraphqlAnswer,
  ): GraphqlAnswer {
    const cost = requestedCost(doc, variables);
    const throttleStatus = () => ({
      maximumAvailable: this.bucket.capacity,
      currentlyAvailable: Math.floor(this.bucket.available()),
      restoreRate: this.bucket.restorePerSecond,
    });
    if (cost > MAX_QUERY_COST) {
      return answer(200, {
        errors: [
          {
            message: `Query cost is ${cost}, which exceeds the single query max cost limit (${MAX_QUERY_COST}).`,
            extensions: { code: 'MAX_COST_EXCEEDED', cost, maxCost: MAX_QUERY_COST },
          },
        ],
      });
    }
    if (this.throttleNext > 0 || !this.bucket.take(cost)) {
      if (this.throttleNext > 0) this.throttleNext -= 1;
      this.stats.throttled += 1;
      return answer(200, {
        errors: [
          {
            message: 'Throttled',
            extensions: {
              code: 'THROTTLED',
              documentation: 'https://shopify.dev/api/usage/rate-limits',
            },
          },
        ],
        extensions: {
          cost: {
            requestedQueryCost: cost,
            actualQueryCost: null,
            throttleStatus: throttleStatus(),
          },
        },
      });
    }
    const fields = rootFields(doc);
    for (const f of fields) this.stats.byField[f] = (this.stats.byField[f] ?? 0) + 1;
    const result = execute({
      schema,
      document: doc,
      variableValues: variables,
      rootValue: rootValue(this.shop, { scopes: this.scopes, shopDomain: this.shopDomain }),
    }) as { data?: unknown; errors?: readonly GraphQLError[] };
    const mutation = doc.definitions.some(
      (d) => d.kind === Kind.OPERATION_DEFINITION && d.operation === OperationTypeNode.MUTATION,
    );
    const actual = Math.min(cost, actualCost(result.data, mutation));
    this.bucket.refund(cost - actual);
    const lose = fields.find((f) => (this.loseAnswers.get(f) ?? 0) > 0);
    if (lose !== undefined) {
      this.loseAnswers.set(lose, this.loseAnswers.get(lose)! - 1);
      this.stats.lostAnswers += 1;
    }
    return answer(
      200,
      {
        ...(result.data !== undefined && { data: result.data }),
        ...(result.errors !== undefined && { errors: result.errors.map((e) => e.toJSON()) }),
        extensions: {
          cost: {
            requestedQueryCost: cost,
            actualQueryCost: cost,
            throttleStatus: throttleStatus(),
          },
        },
      },
      lose !== undefined,
    );
  }

  // ---- webhooks -------------------------------------------------------------------------------

  private async fire(topic: ShopifyTopic, order: ShopOrder): Promise<void> {
    const d = newDelivery(topic, order);
    this.deliveries.set(order.id, [...(this.deliveries.get(order.id) ?? []), d]);
    await this.send(d);
  }

  private async send(d: ShopifyDelivery): Promise<SentWebhook | undefined> {
    if (this.webhookUrl === undefined) return undefined;
    const sent = await sendDelivery(this.webhookUrl, d, {
      domain: this.shopDomain,
      apiVersion: this.apiVersion,
      clientSecret: this.clientSecret,
    });
    this.sent.push(sent);
    return sent;
  }
}
