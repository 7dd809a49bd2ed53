/**
 * The Shopify double's webhooks: the order as the REST resource Shopify sends (webhook payloads
 * use the REST representation), with Shopify's headers and the HMAC of the raw body signed with
 * the app's client secret.
 */
import { randomUUID } from 'node:crypto';

import { bodySignature, postWebhook, type SentWebhook } from '../webhookPost.js';
import { gid, type ShopOrder } from './shop.js';

export type ShopifyTopic = 'orders/create' | 'orders/paid' | 'orders/cancelled' | 'orders/updated';

export function orderPayload(order: ShopOrder): Record<string, unknown> {
  const total =
    order.lineItems.reduce((sum, li) => sum + Number(li.price) * li.quantity, 0) +
    order.shippingLines.reduce((sum, s) => sum + Number(s.price), 0);
  return {
    id: order.id,
    admin_graphql_api_id: gid('Order', order.id),
    name: order.name,
    order_number: Number(order.name.slice(1)),
    email: order.email,
    created_at: order.createdAt,
    currency: order.currency,
    financial_status: order.financialStatus,
    total_price: total.toFixed(2),
    cancelled_at: order.cancelledAt,
    cancel_reason: order.cancelReason,
    note: order.note,
    tags: order.tags.join(', '),
    line_items: order.lineItems.map((li) => ({
      id: li.id,
      admin_graphql_api_id: gid('LineItem', li.id),
      variant_id: li.variantId,
      sku: li.sku,
      title: li.title,
      name: li.title,
      quantity: li.quantity,
      price: li.price,
    })),
    shipping_address: order.shippingAddress,
    shipping_lines: order.shippingLines,
    customer: {
      email: order.email,
      first_name: order.shippingAddress['first_name'] ?? null,
      last_name: order.shippingAddress['last_name'] ?? null,
    },
  };
}

export interface ShopifyDelivery {
  topic: ShopifyTopic;
  body: string;
  eventId: string;
  webhookId: string;
}

/** A new event for `order`: its ids stay with it for every re-delivery. */
export function newDelivery(topic: ShopifyTopic, order: ShopOrder): ShopifyDelivery {
  return {
    topic,
    body: JSON.stringify(orderPayload(order)),
    eventId: randomUUID(),
    webhookId: randomUUID(),
  };
}

export function sendDelivery(
  url: string,
  d: ShopifyDelivery,
  shop: { domain: string; apiVersion: string; clientSecret: string },
): Promise<SentWebhook> {
  return postWebhook(url, d.topic, d.body, {
    'x-shopify-topic': d.topic,
    'x-shopify-hmac-sha256': bodySignature(d.body, shop.clientSecret),
    'x-shopify-shop-domain': shop.domain,
    'x-shopify-api-version': shop.apiVersion,
    'x-shopify-webhook-id': d.webhookId,
    'x-shopify-event-id': d.eventId,
    'x-shopify-triggered-at': new Date().toISOString(),
  });
}
