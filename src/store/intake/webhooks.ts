/**
 * A store webhook, once its signature is checked (gateway/storeRoutes.ts): which event of which
 * order it is, read from the platform's headers and body. Shopify: `X-Shopify-Topic`,
 * `X-Shopify-Event-Id` (the same on every re-delivery; `X-Shopify-Webhook-Id` before it existed).
 * WooCommerce: `X-WC-Webhook-Topic`, `X-WC-Webhook-Delivery-ID`.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { createHash } from 'node:crypto';
import type { z } from 'zod';

import type { FieldIssue } from '../../supplier/errors.js';
import { toFieldIssues } from '../../supplier/issues.js';
import { StorePlatform, type Store } from '../../accounts/contract.js';
import { ShopifyOrder, shopifyFacts } from './shopifyOrder.js';
import { factsIssues, StoreOrderId, type StoreOrderFacts } from './storeOrder.js';
import { WooOrder, wooFacts } from './wooOrder.js';

/** What a topic means to dropflow. */
export type WebhookKind = 'order' | 'updated' | 'cancelled' | 'other';

const TOPICS: Record<string, WebhookKind> = {
  'orders/create': 'order',
  'orders/paid': 'order',
  'orders/updated': 'updated',
  'orders/edited': 'updated',
  'orders/cancelled': 'cancelled',
  'order.created': 'order',
  'order.updated': 'updated',
  'order.restored': 'updated',
  'order.deleted': 'cancelled',
};

export interface StoreWebhook {
  eventId: string;
  topic: string;
  kind: WebhookKind;
  /** The store order; absent for a topic dropflow does not act on. */
  facts?: StoreOrderFacts;
}

export type ReadWebhook =
  { ok: true; webhook: StoreWebhook } | { ok: false; status: 400; issues: FieldIssue[] };

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
};

/** WooCommerce's ping when a webhook is saved: `webhook_id=<n>`, form-encoded. */
export function isWooPing(raw: Buffer): boolean {
  return /^webhook_id=\d+$/.test(raw.toString('utf8').trim());
}

export function readStoreWebhook(
  store: Store,
  headers: IncomingHttpHeaders,
  raw: Buffer,
): ReadWebhook {
  const shopify = store.platform === StorePlatform.Shopify;
  const topic = header(headers, shopify ? 'x-shopify-topic' : 'x-wc-webhook-topic') ?? '';
  const eventId =
    (shopify
      ? (header(headers, 'x-shopify-event-id') ?? header(headers, 'x-shopify-webhook-id'))
      : header(headers, 'x-wc-webhook-delivery-id')) ??
    // No id: the body itself names the delivery (the same bytes are the same event).
    `sha256:${createHash('sha256').update(raw).digest('hex')}`;
  const kind = TOPICS[topic] ?? 'other';
  if (kind === 'other' || (!shopify && isWooPing(raw))) {
    return { ok: true, webhook: { eventId, topic, kind: 'other' } };
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return { ok: false, status: 400, issues: [{ field: '(body)', rule: 'must be JSON' }] };
  }
  if (!shopify && kind === 'cancelled' && isDeletedShape(body)) {
    const id = StoreOrderId.safeParse(body.id);
    if (!id.success) return { ok: false, status: 400, issues: fieldIssues(id.error, 'id') };
    return { ok: true, webhook: { eventId, topic, kind, facts: deletedFacts(id.data) } };
  }
  const parsed = shopify ? ShopifyOrder.safeParse(body) : WooOrder.safeParse(body);
  if (!parsed.success) return { ok: false, status: 400, issues: toFieldIssues(parsed.error) };
  // The topic header is not signed: only the signed body's own word cancels an order.
  const facts = shopify
    ? shopifyFacts(parsed.data as ShopifyOrder)
    : wooFacts(parsed.data as WooOrder);
  const issues = facts.cancelled ? [] : factsIssues(facts);
  if (issues.length > 0) return { ok: false, status: 400, issues };
  return { ok: true, webhook: { eventId, topic, kind, facts } };
}

/**
 * WooCommerce's `order.deleted` carries the id alone (`{"id": 123}`), and only it has that shape,
 * so a body signed for another event cannot be passed off as a deletion under this topic.
 */
function isDeletedShape(body: unknown): body is { id: unknown } {
  return (
    typeof body === 'object' &&
    body !== null &&
    !Array.isArray(body) &&
    Object.keys(body).length === 1 &&
    'id' in body
  );
}

function fieldIssues(error: z.ZodError, field: string): FieldIssue[] {
  return toFieldIssues(error).map((i) => ({ ...i, field }));
}

function deletedFacts(orderId: string): StoreOrderFacts {
  return {
    orderId,
    orderName: `#${orderId}`,
    paid: false,
    cancelled: true,
    cancelReason: 'deleted in the store',
    currency: 'USD',
    customerName: '',
    address1: '',
    city: '',
    province: '',
    countryCode: '',
    country: '',
    lines: [],
  };
}
