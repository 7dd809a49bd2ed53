/** Webhook management (docs/supplier-api.md §12.1, §12.2; delivery rules in §12.3). */
import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import {
  bool,
  id,
  int,
  list,
  optBool,
  optList,
  optNum,
  optStr,
  optText,
  record,
  text,
} from '../fields.js';
import { ORDER_CONNECTED_MESSAGE_TYPE } from '../webhookMessages.js';

/** A webhook topic: what setWebhooks enables, each with its own callback. */
export const WebhookTopic = {
  Product: 'product',
  Stock: 'stock',
  Order: 'order',
  Logistics: 'logistics',
  Makeup: 'makeup',
  PrivateOrder: 'privateOrder',
} as const;
export type WebhookTopic = (typeof WebhookTopic)[keyof typeof WebhookTopic];

export const WEBHOOK_TOPICS = [
  WebhookTopic.Product,
  WebhookTopic.Stock,
  WebhookTopic.Order,
  WebhookTopic.Logistics,
  WebhookTopic.Makeup,
  WebhookTopic.PrivateOrder,
] as const;

/** `type` of a topic's setting in setWebhooks. */
export const TopicSettingType = { Enable: 'ENABLE', Cancel: 'CANCEL' } as const;
export type TopicSettingType = (typeof TopicSettingType)[keyof typeof TopicSettingType];

/** `type` of a pushed webhook message (schemas in ../webhookMessages.ts). */
export const WebhookType = {
  Order: 'ORDER',
  OrderSplit: 'ORDERSPLIT',
  Logistic: 'LOGISTIC',
  Product: 'PRODUCT',
  Variant: 'VARIANT',
  Stock: 'STOCK',
  Makeup: 'MAKEUP',
  PrivateOrder: 'PRIVATE_ORDER',
} as const;
export type WebhookType = (typeof WebhookType)[keyof typeof WebhookType];

/** `messageType` of a pushed webhook message: what happened to the thing its `type` names. */
export const WebhookChange = {
  Insert: 'INSERT',
  Update: 'UPDATE',
  Delete: 'DELETE',
  /** ORDER: a store-flow order got connected (spelt with three N by the supplier). */
  OrderConnected: ORDER_CONNECTED_MESSAGE_TYPE,
  /** MAKEUP: the makeup order was cancelled. */
  Cancel: 'CANCEL',
  /** MAKEUP: the makeup order was paid. */
  Paid: 'PAID',
} as const;
export type WebhookChange = (typeof WebhookChange)[keyof typeof WebhookChange];

/** One topic's setting. The vendor marks callbackUrls required for CANCEL too. */
const TopicSetting = z.object({
  type: z.enum([TopicSettingType.Enable, TopicSettingType.Cancel], {
    error: 'must be ENABLE or CANCEL',
  }),
  callbackUrls: z
    .array(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }), {
      error: 'must be a list',
    })
    .length(1, { error: 'must hold exactly one address' }),
});
export type WebhookTopicSetting = z.infer<typeof TopicSetting>;

export const setWebhooks = endpoint({
  name: 'setWebhooks',
  method: 'POST',
  path: 'webhook/set',
  request: z.object({
    product: TopicSetting.optional(),
    stock: TopicSetting.optional(),
    order: TopicSetting.optional(),
    logistics: TopicSetting.optional(),
    makeup: TopicSetting.optional(),
    privateOrder: TopicSetting.optional(),
  }),
  response: optBool,
});

const productId = text(50);

export const subscribeProducts = endpoint({
  name: 'subscribeProducts',
  method: 'POST',
  path: 'webhook/product/subscribe',
  request: z
    .object({
      productIds: list(productId, 100).optional(),
      subscribeAll: bool().optional(),
    })
    .superRefine((v, ctx) => {
      const ids = v.productIds !== undefined && v.productIds.length > 0;
      if (ids && v.subscribeAll === true) {
        ctx.addIssue({
          code: 'custom',
          path: ['subscribeAll'],
          message: 'must not be true together with productIds (they are mutually exclusive)',
        });
      } else if (!ids && v.subscribeAll === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['productIds'],
          message: 'is required (or subscribeAll)',
        });
      }
    }),
  // failProductIds: the vendor gives reasons (already subscribed, nonexistent) but no shape; ids
  // only is assumed (uncertain).
  response: record({
    successProductIds: optList(id),
    failProductIds: optList(id),
    subscribeAll: optBool,
  }),
});

export const unsubscribeProducts = endpoint({
  name: 'unsubscribeProducts',
  method: 'POST',
  path: 'webhook/product/unsubscribe',
  request: z.object({
    productIds: list(productId, 100).refine((ids) => ids.length > 0, {
      error: 'must not be empty',
    }),
  }),
  response: optBool,
});

/** Product subscription (docs/supplier-api.md §12.2). */
export const ProductSubscription = record({
  productId: id,
  sku: optStr,
  productName: optStr,
  productImage: optStr,
  status: optBool,
  reason: optStr,
  createAt: optStr,
});
export type ProductSubscription = z.infer<typeof ProductSubscription>;

export const listProductSubscriptions = endpoint({
  name: 'listProductSubscriptions',
  method: 'GET',
  path: 'webhook/product/subscribe/list',
  request: z.object({
    pageNum: int().min(1, { error: 'must be at least 1' }).optional(),
    pageSize: int()
      .min(1, { error: 'must be at least 1' })
      .max(200, { error: 'must be at most 200' })
      .optional(),
    sku: optText(21),
    productId: optText(50),
    // Length not documented; 50 as for the other ids (guess).
    shopId: optText(50),
  }),
  response: record({
    pageSize: optNum,
    pageNumber: optNum,
    totalRecords: optNum,
    totalPages: optNum,
    content: optList(ProductSubscription),
  }),
});

export const webhooksEndpoints = {
  setWebhooks,
  subscribeProducts,
  unsubscribeProducts,
  listProductSubscriptions,
} as const;
