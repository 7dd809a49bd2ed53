/**
 * Stock and warehouses (docs/supplier-api.md §8): stock per storage from the seed catalogue, with
 * stockId = storageId, and warehouse details from STORAGES.
 */
import {
  getInventoryByPid,
  queryInventoryBySku,
  queryInventoryByVid,
  SupplierCode,
  warehouseDetail,
} from 'dropflow/supplier';
import { countryName, productBySku, stockByStorage } from '../catalogue.js';
import { SandboxError, type SandboxRouter } from '../routing.js';
import {
  findProduct,
  findStorage,
  findVariant,
  type SeedStorage,
  type SeedVariant,
} from '../seed.js';

export function registerInventoryRoutes(r: SandboxRouter): void {
  // Unknown ids give empty lists: the vendor documents no error for them.
  r.serve(getInventoryByPid, ({ pid }) => {
    const p = findProduct(pid);
    if (!p) return { inventories: [], variantInventories: [] };
    const byCountry = new Map<string, { storage: SeedStorage; units: number }>();
    for (const v of p.variants) {
      for (const s of stockByStorage(v)) {
        const cc = s.storage.countryCode;
        const seen = byCountry.get(cc);
        byCountry.set(cc, { storage: s.storage, units: (seen?.units ?? 0) + s.units });
      }
    }
    return {
      inventories: [...byCountry.entries()].map(([countryCode, { storage, units }]) => ({
        areaEn: storage.areaEn,
        areaId: storage.areaId,
        countryCode,
        countryNameEn: countryName(countryCode),
        totalInventoryNum: units,
        svcInventoryNum: units,
        factoryInventoryNum: 0,
      })),
      variantInventories: p.variants.map((v) => ({
        vid: v.vid,
        // The inner counters use the spelling of the vendor's own example (totalInventory,
        // factoryInventory), which clients must read as well as the …Num names.
        inventory: byCountryOf(v).map((c) => ({
          countryCode: c.countryCode,
          totalInventory: c.units,
          svcInventoryNum: c.units,
          factoryInventory: 0,
          verifiedWarehouse: 1,
          stock: c.stock,
        })),
      })),
    };
  });

  r.serve(queryInventoryByVid, ({ vid }) => {
    const v = findVariant(vid);
    return v ? variantStock(v) : [];
  });

  /** A variant SKU, or a product SKU (SPU) for all of its variants. */
  r.serve(queryInventoryBySku, ({ sku }) => {
    const v = findVariant(undefined, sku);
    if (v) return variantStock(v);
    return productBySku(sku)?.variants.flatMap(variantStock) ?? [];
  });

  r.serve(warehouseDetail, ({ id }) => {
    const s = findStorage(id);
    if (!s) throw new SandboxError(SupplierCode.WarehouseNotFound, 'warehouse not found');
    return {
      id: s.storageId,
      name: s.name,
      areaId: s.areaId,
      areaCountryCode: s.countryCode,
      province: s.province,
      city: s.city,
      address1: s.address1,
      address2: '',
      contacts: 'Warehouse Desk',
      phone: s.phone,
      isSelfPickup: 0,
      zipCode: s.zipCode,
      logisticsBrandList: s.logisticsBrandList,
    };
  });
}

interface CountryStock {
  countryCode: string;
  storage: SeedStorage;
  units: number;
  stock: { stockId: string; inventory: number; factoryInventory: number }[];
}

/** A variant's storages grouped by country. */
function byCountryOf(v: SeedVariant): CountryStock[] {
  const out = new Map<string, CountryStock>();
  for (const { storage, units } of stockByStorage(v)) {
    const c = out.get(storage.countryCode) ?? {
      countryCode: storage.countryCode,
      storage,
      units: 0,
      stock: [],
    };
    c.units += units;
    c.stock.push({ stockId: storage.storageId, inventory: units, factoryInventory: 0 });
    out.set(storage.countryCode, c);
  }
  return [...out.values()];
}

function variantStock(v: SeedVariant) {
  return byCountryOf(v).map((c) => ({
    vid: v.vid,
    areaId: c.storage.areaId,
    areaEn: c.storage.areaEn,
    countryCode: c.countryCode,
    totalInventoryNum: c.units,
    svcInventoryNum: c.units,
    factoryInventoryNum: 0,
    stock: c.stock,
  }));
}
