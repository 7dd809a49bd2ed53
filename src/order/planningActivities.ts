/**
 * Activities that help choose before creating: freight for a logistics policy, stock for a flow-A
 * storage, and store-product connections for flow C.
 */
import type { SupplierClient } from '../supplier/client.js';
import { queryInventoryByVid } from '../supplier/api/inventory.js';
import { freightCalculate } from '../supplier/api/logistics.js';
import { createConnection } from '../supplier/api/shops.js';
import { supplierCall } from '../supplier/supplierCall.js';

export interface FreightQuote {
  logisticName: string;
  price: number;
  /** Upper bound of the delivery time in days, when the supplier gave a range. */
  maxDays?: number;
}

export interface StoreConnection {
  storeProductId: string;
  storeVariantId: string;
  svcProductId: string;
  svcVariantId: string;
}

export function planningActivities(supplier: SupplierClient) {
  return {
    async freightCalculate(route: {
      from: string;
      to: string;
      zip?: string;
      products: { vid: string; quantity: number }[];
    }): Promise<FreightQuote[]> {
      const options = await supplierCall(supplier, freightCalculate, {
        startCountryCode: route.from,
        endCountryCode: route.to,
        ...(route.zip !== undefined && { zip: route.zip }),
        products: route.products,
      });
      return options.flatMap((o) => {
        if (!o.logisticName) return [];
        const price = o.totalPostageFee ?? o.logisticPrice;
        if (price == null) return [];
        const days = (o.logisticAging ?? '')
          .split(/[^\d]+/)
          .filter(Boolean)
          .map(Number);
        return [
          {
            logisticName: o.logisticName,
            price,
            ...(days.length > 0 && { maxDays: Math.max(...days) }),
          },
        ];
      });
    },

    /** Units of one variant per storage in a country: storageId → units. */
    async queryInventoryByVid(q: {
      vid: string;
      countryCode: string;
    }): Promise<Record<string, number>> {
      const rows = await supplierCall(supplier, queryInventoryByVid, { vid: q.vid });
      const units: Record<string, number> = {};
      for (const row of rows) {
        if (row.countryCode !== q.countryCode) continue;
        for (const s of row.stock) units[s.stockId] = (units[s.stockId] ?? 0) + (s.inventory ?? 0);
      }
      return units;
    },

    async createConnection(c: StoreConnection & { logistics: string }): Promise<void> {
      await supplierCall(supplier, createConnection, {
        defaultArea: 1,
        logistics: c.logistics,
        svcProductId: c.svcProductId,
        platformProductId: c.storeProductId,
        variantList: [{ svcVariantId: c.svcVariantId, platformVariantId: c.storeVariantId }],
      });
    },
  };
}

declare module '../durable/supplierActivities.js' {
  interface SupplierActivities extends ReturnType<typeof planningActivities> {}
}
