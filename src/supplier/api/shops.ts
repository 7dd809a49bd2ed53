/**
 * Shops, store products and connections (docs/supplier-api.md §10). A store product is the
 * caller's own listing; a connection links one of its variants to a catalogue variant, which is
 * what turns a store-flow order into a normal one.
 */
import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import {
  amount,
  id,
  int,
  list,
  nonEmptyList,
  optId,
  optInt,
  optList,
  optMoney,
  optNum,
  optStr,
  optText,
  record,
  text,
} from '../fields.js';

const pageSize = (max: number) =>
  int()
    .min(1, { error: 'must be at least 1' })
    .max(max, { error: `must be at most ${max}` })
    .optional();

/** 0 unconnected, 1 partly connected, 2 connected, 3 delisted-connected. */
export const RelevanceStatus = {
  Unconnected: 0,
  Partly: 1,
  Connected: 2,
  DelistedConnected: 3,
} as const;
export type RelevanceStatus = (typeof RelevanceStatus)[keyof typeof RelevanceStatus];

/** A store variant's `relevanceStatus`: text here, unlike the product's number. */
export const VariantRelevanceStatus = { Unknown: '0', Unconnected: '1', Connected: '2' } as const;
export type VariantRelevanceStatus =
  (typeof VariantRelevanceStatus)[keyof typeof VariantRelevanceStatus];

/** A store variant's `inventoryItemStatus`. */
export const InventoryItemStatus = {
  Unused: '0',
  FulfillmentWithoutStock: '1',
  FulfillmentAndStock: '2',
  StockOnly: '3',
} as const;
export type InventoryItemStatus = (typeof InventoryItemStatus)[keyof typeof InventoryItemStatus];

/** A store product's `shopProductStatus`. */
export const ShopProductStatus = { Listed: 1, Deleted: 2, Delisted: 3 } as const;
export type ShopProductStatus = (typeof ShopProductStatus)[keyof typeof ShopProductStatus];

export const ShopStatus = {
  Deleted: 0,
  Enabled: 1,
  Disabled: 2,
  AuthorizationFailed: 3,
  AutoExpired: 4,
  Transferring: 5,
} as const;
export type ShopStatus = (typeof ShopStatus)[keyof typeof ShopStatus];

// ---- resources ----

export const Shop = record({
  id,
  createDate: optStr,
  name: optStr,
  status: optNum,
  /** The platform, such as Api. */
  type: optStr,
  updateDate: optStr,
  marketplace: optStr,
  aliasName: optStr,
  syncInventory: optNum,
  syncInventoryRate: optNum,
  isCb: optNum,
  trackUrlTemplate: optStr,
  emailNotification: optNum,
  email: optStr,
  countryCode: optStr,
  storeCountry: optStr,
  platformLogoUrl: optStr,
  currencyCode: optStr,
  businessType: optNum,
});
export type Shop = z.infer<typeof Shop>;

export const StoreVariant = record({
  platformProductId: optId,
  platformVariantId: id,
  platformVariantSku: optStr,
  platformVariantTitle: optStr,
  platformVariantImage: optStr,
  price: optMoney,
  priceUSD: optMoney,
  priceCurrency: optStr,
  grams: z.union([z.string(), z.number()]).nullish(),
  weight: optMoney,
  weightUnit: optStr,
  /** A string here: see VariantRelevanceStatus. */
  relevanceStatus: z.union([z.string(), z.number()]).transform(String).nullish(),
  /** See InventoryItemStatus. */
  inventoryItemStatus: z.union([z.string(), z.number()]).transform(String).nullish(),
  shopProductStatus: optNum,
  createDateTime: optNum,
});
export type StoreVariant = z.infer<typeof StoreVariant>;

export const StoreProduct = record({
  shopId: optId,
  shopName: optStr,
  shopType: optStr,
  platformProductId: id,
  platformProductTitle: optStr,
  platformProductImage: optStr,
  /** A price range such as "9.90-12.50"; omitted for one marketplace type. */
  platformProductPrices: optStr,
  platformProductPricesCurrency: optStr,
  platformProductHandle: optStr,
  platformProductType: optStr,
  platformProductCategoryId: optId,
  platformProductTags: optStr,
  /** See ShopProductStatus. */
  shopProductStatus: optNum,
  /** See RelevanceStatus. */
  relevanceStatus: optNum,
  createDateTime: optNum,
});
export type StoreProduct = z.infer<typeof StoreProduct>;

export const StoreProductDetail = StoreProduct.extend({ variants: optList(StoreVariant) });
export type StoreProductDetail = z.infer<typeof StoreProductDetail>;

export const Connection = record({
  shopId: optId,
  platformProductId: id,
  platformVariantId: optId,
  svcProductId: optId,
  svcVariantId: optId,
  defaultArea: optNum,
  logistics: optStr,
  sourceCountryCode: optStr,
  sourceCountry: optStr,
  targetCountryCode: optStr,
  targetCountry: optStr,
});
export type Connection = z.infer<typeof Connection>;

// ---- endpoints ----

export const getShops = endpoint({
  name: 'getShops',
  method: 'GET',
  path: 'shop/getShops',
  transport: 'none',
  request: z.object({}),
  response: optList(Shop),
});

export const saveStoreProduct = endpoint({
  name: 'saveStoreProduct',
  method: 'POST',
  path: 'store/product/saveProduct',
  request: z
    .object({
      id: text(64),
      title: text(500),
      image: text(400),
      description: optText(5000),
      priceMin: amount().optional(),
      priceMax: amount().optional(),
      priceCurrency: optText(10),
    })
    .refine((p) => (p.priceMin === undefined && p.priceMax === undefined) || !!p.priceCurrency, {
      error: 'is required with priceMin or priceMax',
      path: ['priceCurrency'],
    }),
  response: z.unknown(),
});

const VariantToSave = z
  .object({
    id: text(64),
    productId: text(64),
    title: text(500),
    sku: text(200),
    image: text(500),
    shopPrice: amount().optional(),
    shopPriceCurrency: optText(10),
    weight: amount().optional(),
    /** For example g or kg. */
    weightUnit: optText(10),
    oldInventoryQuantity: optInt(),
  })
  .refine((v) => v.shopPrice === undefined || !!v.shopPriceCurrency, {
    error: 'is required with shopPrice',
    path: ['shopPriceCurrency'],
  });

export const saveStoreVariants = endpoint({
  name: 'saveStoreVariants',
  method: 'POST',
  path: 'store/product/saveVariantBatch',
  request: z.object({ variants: nonEmptyList(VariantToSave) }),
  response: optList(
    record({
      id,
      productId: optId,
      saveSuccess: z.boolean(),
      /** null on success. */
      saveFailMessage: optStr,
    }),
  ),
});

export const queryStoreProducts = endpoint({
  name: 'queryStoreProducts',
  method: 'GET',
  path: 'shop/product/queryPage',
  request: z.object({
    pageNum: optInt(),
    pageSize: pageSize(10),
    shopId: optText(200),
    /** Exact match. */
    shopProductId: optText(200),
    /** Fuzzy match on the title. */
    searchKey: optText(200),
    /** Omitted: no filter. */
    relevanceStatusValues: list(
      int().min(0, { error: 'must be 0-3' }).max(3, { error: 'must be 0-3' }),
    ).optional(),
  }),
  response: record({
    pageNum: optNum,
    pageSize: optNum,
    total: optNum,
    list: optList(StoreProduct),
  }),
});

export const queryStoreProductDetail = endpoint({
  name: 'queryStoreProductDetail',
  method: 'GET',
  path: 'shop/product/queryDetail',
  request: z.object({
    shopId: text(200),
    platformProductIds: nonEmptyList(text(200), 10),
  }),
  response: optList(StoreProductDetail),
});

export const listConnections = endpoint({
  name: 'listConnections',
  method: 'GET',
  path: 'product/conn/connection',
  request: z.object({
    /** Omitted: the API-type shop. */
    shopId: optText(40),
    platformProductId: optText(100),
    platformVariantId: optText(100),
    page: optInt(),
    pageSize: pageSize(100),
  }),
  response: record({ total: optNum, list: optList(Connection) }),
});

export const createConnection = endpoint({
  name: 'createConnection',
  method: 'POST',
  path: 'product/conn/connection',
  request: z.object({
    shopId: optText(50),
    defaultArea: int(),
    logistics: text(200),
    svcProductId: text(50),
    platformProductId: text(100),
    sourceCountryCode: optText(20),
    sourceCountry: optText(100),
    targetCountryCode: optText(20),
    targetCountry: optText(100),
    variantList: nonEmptyList(z.object({ svcVariantId: text(50), platformVariantId: text(100) })),
  }),
  response: z.unknown(),
});

export const deleteConnection = endpoint({
  name: 'deleteConnection',
  method: 'DELETE',
  path: 'product/conn/connection',
  request: z.object({
    shopId: optText(50),
    platformProductId: text(100),
    /** Omitted: every variant connection of the product is removed. */
    platformVariantId: optText(100),
  }),
  response: z.unknown(),
});

export const shopsEndpoints = {
  getShops,
  saveStoreProduct,
  saveStoreVariants,
  queryStoreProducts,
  queryStoreProductDetail,
  listConnections,
  createConnection,
  deleteConnection,
} as const;
