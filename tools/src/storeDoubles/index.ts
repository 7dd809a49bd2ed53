/**
 * The store doubles: a Shopify shop and a WooCommerce site, written from the platforms' public
 * documentation, for tests, benches and `dropflow dev` (docs/store-shopify.md,
 * docs/store-woocommerce.md).
 */
export { LeakyBucket } from './leakyBucket.js';
export { bodySignature, type SentWebhook } from './webhookPost.js';
export {
  SHOPIFY_DEFAULT_SCOPES,
  SHOPIFY_VERSIONS,
  ShopifyDouble,
  type ShopifyDoubleOptions,
} from './shopify/double.js';
export {
  placeShopifyOrder,
  shopifyDoubleOrder,
  startShopifyDouble,
  type StartedShopifyDouble,
} from './shopify/server.js';
export type { NewShopOrder, ShopOrder } from './shopify/shop.js';
export { WooDouble, type WooDoubleOptions } from './woocommerce/double.js';
export { startWooDouble, type StartedWooDouble } from './woocommerce/server.js';
export type { NewWooOrder, WooOrder } from './woocommerce/site.js';
