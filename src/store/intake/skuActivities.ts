/**
 * Resolving a store SKU to a supplier variant (docs/store-shopify.md, "Mapping"): an explicit
 * mapping of the store (`dropflow store map`, read from the registry on the orders queue), else
 * the supplier's own variant SKU (`product/query?variantSku=`, on the account's supplier queue,
 * kept a while per process so a busy SKU costs one call, not one per order).
 */
import type { SupplierClient } from '../../supplier/client.js';
import { queryProduct } from '../../supplier/api/catalogue.js';
import { ApplicationFailure } from '@temporalio/common';
import { SupplierCode } from '../../supplier/errors.js';
import type { SupplierFailureDetails } from '../../supplier/failureDetails.js';
import { supplierCall } from '../../supplier/supplierCall.js';
import type { StoreDirectory } from '../../accounts/contract.js';

/** How long a SKU's variants are kept (found or not found). */
export const SKU_CACHE_MS = 10 * 60_000;
const SKU_CACHE_MAX = 5_000;

/** The supplier-queue activity: the variants whose variantSku is the SKU (none, one or several). */
export function storeSkuActivities(supplier: SupplierClient) {
  const cache = new Map<string, { vids: string[]; at: number }>();
  return {
    async variantsBySku(sku: string): Promise<string[]> {
      const hit = cache.get(sku);
      if (hit !== undefined && Date.now() - hit.at < SKU_CACHE_MS) return hit.vids;
      let vids: string[];
      try {
        const product = await supplierCall(supplier, queryProduct, { variantSku: sku });
        vids = product.variants
          .filter((v) => v.variantSku?.toLowerCase() === sku.toLowerCase())
          .map((v) => v.vid);
      } catch (err) {
        // The supplier answers an unknown SKU as a parameter error: no variant has it.
        if (!isParamError(err)) throw err;
        vids = [];
      }
      if (cache.size >= SKU_CACHE_MAX) cache.delete(cache.keys().next().value!);
      cache.set(sku, { vids, at: Date.now() });
      return vids;
    },
  };
}
export type StoreSkuActivities = ReturnType<typeof storeSkuActivities>;

/**
 * The orders-queue activity: the explicit mappings of a store's SKUs, read fresh. `stores` is the
 * registry's directory (its `mappedVid`); a process without one knows no mapping.
 */
export function storeMappingActivities(stores: Partial<StoreDirectory> | undefined) {
  return {
    async storeMappedVids(q: {
      connection: string;
      skus: string[];
    }): Promise<Record<string, string>> {
      await stores?.refresh?.();
      const found: Record<string, string> = {};
      for (const sku of q.skus) {
        const vid = stores?.mappedVid?.(q.connection, sku);
        if (vid !== undefined) found[sku] = vid;
      }
      return found;
    },
  };
}
export type StoreMappingActivities = ReturnType<typeof storeMappingActivities>;

function isParamError(err: unknown): boolean {
  if (!(err instanceof ApplicationFailure)) return false;
  const details = err.details?.[0] as SupplierFailureDetails | undefined;
  return details?.code === SupplierCode.ParamError;
}

declare module '../../durable/supplierActivities.js' {
  interface SupplierActivities extends StoreSkuActivities {}
  interface OrdersQueueActivities extends StoreMappingActivities {}
}
