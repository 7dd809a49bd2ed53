/**
 * The store products the supplier already knows (docs/store-shopify.md, "Mapping"): a store
 * variant connected at the supplier (its web app, or `dropflow connect`) to a catalogue variant,
 * with the store product's image the supplier keeps. An order whose every line is connected is
 * created in the store flow (flow C); a connected line of another order orders its catalogue
 * variant. Kept a while per process, as a busy product would otherwise cost two calls per order.
 */
import type { SupplierClient } from '../../supplier/client.js';
import { listConnections, queryStoreProductDetail } from '../../supplier/api/shops.js';
import { supplierCall } from '../../supplier/supplierCall.js';

/** A store variant connected to a catalogue variant. */
export interface ConnectedVariant {
  storeProductId: string;
  storeVariantId: string;
  svcProductId: string;
  svcVariantId: string;
  /** The store variant's image at the supplier, else its product's; absent when it has none. */
  image?: string;
}

/** How long a store product's connections are kept (connected or not). */
export const CONNECTION_CACHE_MS = 10 * 60_000;
const CONNECTION_CACHE_MAX = 5_000;

export function storeConnectionActivities(supplier: SupplierClient) {
  const cache = new Map<string, { variants: ConnectedVariant[]; at: number }>();

  async function connectedOf(storeProductId: string): Promise<ConnectedVariant[]> {
    const hit = cache.get(storeProductId);
    if (hit !== undefined && Date.now() - hit.at < CONNECTION_CACHE_MS) return hit.variants;
    // The API-type shop's connections: the one shop store-flow orders are filed under.
    const { list } = await supplierCall(supplier, listConnections, {
      platformProductId: storeProductId,
      pageSize: 100,
    });
    const linked = list.filter(
      (c) => c.platformVariantId != null && c.svcVariantId != null && c.svcProductId != null,
    );
    let variants: ConnectedVariant[] = [];
    const shopId = linked[0]?.shopId;
    if (linked.length > 0 && shopId != null) {
      const [product] = await supplierCall(supplier, queryStoreProductDetail, {
        shopId,
        platformProductIds: [storeProductId],
      });
      variants = linked.map((c) => {
        const image =
          product?.variants.find((v) => v.platformVariantId === c.platformVariantId)
            ?.platformVariantImage || product?.platformProductImage;
        return {
          storeProductId,
          storeVariantId: c.platformVariantId!,
          svcProductId: c.svcProductId!,
          svcVariantId: c.svcVariantId!,
          ...(image != null && image !== '' && { image }),
        };
      });
    }
    if (cache.size >= CONNECTION_CACHE_MAX) cache.delete(cache.keys().next().value!);
    cache.set(storeProductId, { variants, at: Date.now() });
    return variants;
  }

  return {
    /** The connected variants of these store products (each asked once). */
    async connectedStoreVariants(storeProductIds: string[]): Promise<ConnectedVariant[]> {
      const found: ConnectedVariant[] = [];
      for (const id of new Set(storeProductIds)) found.push(...(await connectedOf(id)));
      return found;
    },
  };
}
export type StoreConnectionActivities = ReturnType<typeof storeConnectionActivities>;

declare module '../../durable/supplierActivities.js' {
  interface SupplierActivities extends StoreConnectionActivities {}
}
