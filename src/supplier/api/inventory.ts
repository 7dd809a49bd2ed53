/**
 * Stock and warehouses for flow A (docs/supplier-api.md §8). The vendor's API reference shows
 * neither request nor response; the shapes are from its own pages (docs/supplier-api.md §13).
 */
import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import { id, optId, optList, optNum, optStr, record, text } from '../fields.js';

/** Units of one storage; `stockId` is the storageId to order from (createOrderV3 storageId). */
export const StockEntry = record({
  stockId: id,
  inventory: optNum,
  factoryInventory: optNum,
});
export type StockEntry = z.infer<typeof StockEntry>;

/**
 * The counters of one country. The vendor's own example spells the totals `totalInventory` and
 * `factoryInventory` where its field table says `totalInventoryNum` and `factoryInventoryNum`
 * (docs/supplier-api.md §13): both are read, and dropflow always holds the `…Num` names.
 */
const counters = {
  totalInventoryNum: optNum,
  totalInventory: optNum,
  svcInventoryNum: optNum,
  factoryInventoryNum: optNum,
  factoryInventory: optNum,
};

function withCounterNames<
  T extends {
    totalInventoryNum?: number | null;
    totalInventory?: number | null;
    factoryInventoryNum?: number | null;
    factoryInventory?: number | null;
  },
>(v: T): T & { totalInventoryNum: number | null; factoryInventoryNum: number | null } {
  return {
    ...v,
    totalInventoryNum: v.totalInventoryNum ?? v.totalInventory ?? null,
    factoryInventoryNum: v.factoryInventoryNum ?? v.factoryInventory ?? null,
  };
}

// ---- getInventoryByPid ----

/** Stock of the whole product in one country. */
export const CountryInventory = record({
  areaEn: optStr,
  areaId: optNum,
  countryCode: optStr,
  countryNameEn: optStr,
  ...counters,
}).transform(withCounterNames);
export type CountryInventory = z.infer<typeof CountryInventory>;

/** Stock of one variant in one country, with its storages. */
export const VariantCountryInventory = record({
  countryCode: optStr,
  /** 1 verified, 2 unverified. */
  verifiedWarehouse: optNum,
  ...counters,
  stock: optList(StockEntry),
}).transform(withCounterNames);
export type VariantCountryInventory = z.infer<typeof VariantCountryInventory>;

export const ProductInventory = record({
  inventories: optList(CountryInventory),
  variantInventories: optList(record({ vid: id, inventory: optList(VariantCountryInventory) })),
});
export type ProductInventory = z.infer<typeof ProductInventory>;

export const getInventoryByPid = endpoint({
  name: 'getInventoryByPid',
  method: 'GET',
  path: 'product/stock/getInventoryByPid',
  request: z.object({ pid: text(200) }),
  response: ProductInventory,
});

// ---- queryByVid, queryBySku ----

/** Stock of one variant in one country (area), with its storages. */
export const VariantStock = record({
  vid: optId,
  areaId: optNum,
  areaEn: optStr,
  countryCode: optStr,
  ...counters,
  stock: optList(StockEntry),
}).transform(withCounterNames);
export type VariantStock = z.infer<typeof VariantStock>;

export const queryInventoryByVid = endpoint({
  name: 'queryInventoryByVid',
  method: 'GET',
  path: 'product/stock/queryByVid',
  request: z.object({ vid: text(200) }),
  response: optList(VariantStock),
});

export const queryInventoryBySku = endpoint({
  name: 'queryInventoryBySku',
  method: 'GET',
  path: 'product/stock/queryBySku',
  request: z.object({ sku: text(200) }),
  response: optList(VariantStock),
});

// ---- warehouse/detail ----

export const WarehouseDetail = record({
  /** The storageId. */
  id,
  name: optStr,
  areaId: optNum,
  areaCountryCode: optStr,
  province: optStr,
  city: optStr,
  address1: optStr,
  address2: optStr,
  contacts: optStr,
  phone: optStr,
  /** 1/0 */
  isSelfPickup: optNum,
  zipCode: optStr,
  /** Carriers accepted on uploaded waybills (svcShippingCompanyName). */
  logisticsBrandList: optList(record({ id: optId, name: optStr })),
});
export type WarehouseDetail = z.infer<typeof WarehouseDetail>;

/** Unknown id: code 1608001 (warehouse not found). */
export const warehouseDetail = endpoint({
  name: 'warehouseDetail',
  method: 'GET',
  path: 'warehouse/detail',
  request: z.object({ id: text(200) }),
  response: WarehouseDetail,
});

export const inventoryEndpoints = {
  getInventoryByPid,
  queryInventoryByVid,
  queryInventoryBySku,
  warehouseDetail,
} as const;
