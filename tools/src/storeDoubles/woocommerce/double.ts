/**
 * The WooCommerce double: a site's REST API v3 (`/wp-json/wc/v3/`), its order notes, the Shipment
 * Tracking extension's route (switchable: a site without it answers `rest_no_route`), the REST
 * index that lists a site's namespaces, and `order.created` / `order.updated` webhooks with
 * WooCommerce's headers and signature. Consumer keys authenticate by HTTP basic auth (or the
 * `consumer_key`/`consumer_secret` query), with WooCommerce's read/write permissions. A host-side
 * rate limiter (a leaky bucket) answers 429 with Retry-After.
 */
import { randomUUID } from 'node:crypto';

import { LeakyBucket } from '../leakyBucket.js';
import { bodySignature, postWebhook, type SentWebhook } from '../webhookPost.js';
import { WooSite, type NewWooOrder, type WooOrder } from './site.js';

export interface WooDoubleOptions {
  consumerKey?: string;
  consumerSecret?: string;
  webhookSecret?: string;
  webhookUrl?: string;
  permissions?: WooPermissions;
  /** Whether the Shipment Tracking extension is installed (default true). */
  shipmentTracking?: boolean;
  /** Requests a host lets through: a burst of 40, then 5 a second. */
  bucketSize?: number;
  ratePerSecond?: number;
}

export type WooPermissions = 'read' | 'write' | 'read_write';

export interface WooStats {
  requests: number;
  limited: number;
  unauthorized: number;
  byRoute: Record<string, number>;
}

export interface WooFailure {
  status: number;
  code: string;
  message: string;
  headers?: Record<string, string>;
}

export class WooDouble {
  readonly site = new WooSite();
  readonly sent: SentWebhook[] = [];
  readonly stats: WooStats = { requests: 0, limited: 0, unauthorized: 0, byRoute: {} };
  readonly bucket: LeakyBucket;
  webhookUrl: string | undefined;
  siteUrl = 'http://127.0.0.1';
  shipmentTracking: boolean;
  permissions: WooPermissions;
  private key: string;
  private secret: string;
  readonly webhookSecret: string;
  private revoked = false;
  private failNext: { count: number; status: number } = { count: 0, status: 503 };
  private readonly loseAnswers = new Map<string, number>();
  /** Webhooks still to lose (WooCommerce does not retry a delivery that failed). */
  private webhooksToLose = 0;
  /** Webhooks lost so far. */
  lostWebhooks = 0;

  constructor(opts: WooDoubleOptions = {}) {
    this.key = opts.consumerKey ?? 'ck_double';
    this.secret = opts.consumerSecret ?? 'cs_double';
    this.webhookSecret = opts.webhookSecret ?? 'double-webhook-secret';
    this.webhookUrl = opts.webhookUrl;
    this.permissions = opts.permissions ?? 'read_write';
    this.shipmentTracking = opts.shipmentTracking ?? true;
    this.bucket = new LeakyBucket(opts.bucketSize ?? 40, opts.ratePerSecond ?? 5);
  }

  // ---- controls -------------------------------------------------------------------------------

  async createOrder(spec: NewWooOrder): Promise<WooOrder> {
    const order = this.site.createOrder(spec);
    await this.fire('order.created', order);
    return order;
  }

  /** The shop manager changes the status (a customer cancellation: `cancelled`). */
  async setStatus(orderId: number, status: WooOrder['status']): Promise<void> {
    const order = this.site.orders.get(orderId);
    if (order === undefined) return;
    this.site.setStatus(order, status);
    await this.fire('order.updated', order);
  }

  revokeKey(): void {
    this.revoked = true;
  }

  restoreKey(key?: string, secret?: string): void {
    this.revoked = false;
    if (key !== undefined) this.key = key;
    if (secret !== undefined) this.secret = secret;
  }

  /** The next `count` API requests answer `status` (429 carries Retry-After: 1). */
  fail(count: number, status: number): void {
    this.failNext = { count, status };
  }

  /** The next `times` requests to `route` (e.g. `POST notes`) act, then lose their answer. */
  loseAnswer(route: string, times = 1): void {
    this.loseAnswers.set(route, times);
  }

  /** The next `count` webhooks are never delivered (the site's request failed; it gives up). */
  loseWebhooks(count: number): void {
    this.webhooksToLose = count;
  }

  // ---- what every API request passes ----------------------------------------------------------

  /** Authentication, permissions and the host's limiter; undefined: go on. */
  admit(
    route: string,
    method: string,
    auth: { key?: string; secret?: string },
  ): WooFailure | undefined {
    this.stats.requests += 1;
    this.stats.byRoute[route] = (this.stats.byRoute[route] ?? 0) + 1;
    if (this.failNext.count > 0) {
      this.failNext.count -= 1;
      const { status } = this.failNext;
      return {
        status,
        code: status === 429 ? 'too_many_requests' : 'internal_server_error',
        message: status === 429 ? 'Too many requests.' : 'Service unavailable.',
        headers: status === 429 ? { 'retry-after': '1' } : {},
      };
    }
    if (!this.bucket.take(1)) {
      this.stats.limited += 1;
      return {
        status: 429,
        code: 'too_many_requests',
        message: 'Too many requests.',
        headers: { 'retry-after': String(Math.ceil(this.bucket.secondsUntil(1))) },
      };
    }
    const denied = this.authenticate(method, auth);
    if (denied !== undefined) this.stats.unauthorized += 1;
    return denied;
  }

  private authenticate(
    method: string,
    auth: { key?: string; secret?: string },
  ): WooFailure | undefined {
    const fail = (message: string): WooFailure => ({
      status: 401,
      code: 'woocommerce_rest_authentication_error',
      message,
    });
    if (auth.key === undefined)
      return {
        status: 401,
        code: 'woocommerce_rest_cannot_view',
        message: 'Sorry, you cannot list resources.',
      };
    if (auth.key !== this.key || this.revoked) return fail('Consumer key is invalid.');
    if (auth.secret !== this.secret) return fail('Consumer secret is invalid.');
    const writing = method !== 'GET' && method !== 'HEAD';
    if (writing && this.permissions === 'read')
      return fail('The API key provided does not have write permissions.');
    if (!writing && this.permissions === 'write')
      return fail('The API key provided does not have read permissions.');
    return undefined;
  }

  /** Whether this request's answer is to be lost (it acted). */
  losesAnswer(route: string): boolean {
    const left = this.loseAnswers.get(route) ?? 0;
    if (left === 0) return false;
    this.loseAnswers.set(route, left - 1);
    return true;
  }

  // ---- webhooks -------------------------------------------------------------------------------

  async fire(topic: 'order.created' | 'order.updated', order: WooOrder): Promise<void> {
    if (this.webhookUrl === undefined) return;
    if (this.webhooksToLose > 0) {
      this.webhooksToLose -= 1;
      this.lostWebhooks += 1;
      return;
    }
    const body = JSON.stringify(order);
    const [resource, event] = topic.split('.') as [string, string];
    this.sent.push(
      await postWebhook(this.webhookUrl, topic, body, {
        'x-wc-webhook-source': `${this.siteUrl}/`,
        'x-wc-webhook-topic': topic,
        'x-wc-webhook-resource': resource,
        'x-wc-webhook-event': event,
        'x-wc-webhook-signature': bodySignature(body, this.webhookSecret),
        'x-wc-webhook-id': '1',
        'x-wc-webhook-delivery-id': randomUUID(),
      }),
    );
  }
}
