/** Catalogue (docs/supplier-api.md §11; limits in §4.4). */
import { z } from 'zod';
import { endpoint } from '../endpoint.js';
import {
  amount,
  bool,
  id,
  int,
  list,
  optBool,
  optId,
  optList,
  optMoney,
  optNum,
  optStr,
  optText,
  record,
  text,
} from '../fields.js';

// ---- request helpers local to the catalogue ----

const intIn = (min: number, max: number) =>
  int()
    .min(min, { error: `must be at least ${min}` })
    .max(max, { error: `must be at most ${max}` });

const oneOf = (values: readonly number[]) =>
  int().refine((v) => values.includes(v), { error: `must be one of ${values.join(', ')}` });

const flag = () => oneOf([0, 1]).optional();
const sortOrder = () => z.enum(['desc', 'asc'], { error: 'must be desc or asc' }).optional();
/** A Java long: digits as text or a number (text keeps values beyond 2^53 exact). */
const optLong = () =>
  z
    .union([z.number().int(), z.string().regex(/^\d{1,19}$/)], { error: 'must be a whole number' })
    .optional();
const dateTime = () =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, { error: 'must be yyyy-MM-dd HH:mm:ss' })
    .optional();

// ---- response helpers ----

/** A text field that some integrations receive as a number (prices as text, codes, ranges). */
const optLabel = optId;

// ---- getCategory ----

export const CategoryLeaf = record({ categoryId: id, categoryName: optStr });
export const CategorySecond = record({
  categorySecondName: optStr,
  categorySecondList: optList(CategoryLeaf),
});
export const CategoryFirst = record({
  categoryFirstName: optStr,
  categoryFirstList: optList(CategorySecond),
});
export type CategoryFirst = z.infer<typeof CategoryFirst>;

export const getCategory = endpoint({
  name: 'getCategory',
  method: 'GET',
  path: 'product/getCategory',
  transport: 'none',
  request: z.object({}),
  response: optList(CategoryFirst),
});

// ---- listV2 ----

const V2Feature = z.enum(
  ['enable_description', 'enable_category', 'enable_combine', 'enable_video'],
  {
    error: 'must be enable_description, enable_category, enable_combine or enable_video',
  },
);

export const ListV2Request = z.object({
  keyWord: optText(200),
  page: intIn(1, 1000).optional(),
  size: intIn(1, 100).optional(),
  categoryId: optText(200),
  lv2categoryList: list(text(200)).optional(),
  lv3categoryList: list(text(200)).optional(),
  /** Stock countries, comma-separated. */
  countryCode: optText(200),
  startSellPrice: amount().optional(),
  endSellPrice: amount().optional(),
  addMarkStatus: flag(),
  productType: oneOf([4, 10, 11]).optional(),
  productFlag: oneOf([0, 1, 2, 3]).optional(),
  startWarehouseInventory: int().optional(),
  endWarehouseInventory: int().optional(),
  verifiedWarehouse: oneOf([0, 1, 2]).optional(),
  timeStart: optLong(),
  timeEnd: optLong(),
  zonePlatform: optText(200),
  isWarehouse: bool().optional(),
  sort: sortOrder(),
  orderBy: oneOf([0, 1, 2, 3, 4]).optional(),
  features: list(V2Feature).optional(),
  supplierId: optText(200),
  hasCertification: flag(),
  isSelfPickup: flag(),
  customization: flag(),
});

/** Product list item (V2). Prices arrive as decimal strings. */
export const ProductV2Item = record({
  id,
  nameEn: optStr,
  sku: optStr,
  spu: optStr,
  bigImage: optStr,
  sellPrice: optMoney,
  nowPrice: optMoney,
  discountPrice: optMoney,
  discountPriceRate: optLabel,
  listedNum: optNum,
  isCollect: optNum,
  categoryId: optId,
  twoCategoryId: optId,
  oneCategoryId: optId,
  threeCategoryName: optStr,
  twoCategoryName: optStr,
  oneCategoryName: optStr,
  addMarkStatus: optNum,
  isVideo: optNum,
  videoList: z.unknown().optional(),
  productType: optLabel,
  supplierName: optStr,
  createAt: optNum,
  setRecommendedTime: optNum,
  warehouseInventoryNum: optNum,
  totalVerifiedInventory: optNum,
  totalUnVerifiedInventory: optNum,
  verifiedWarehouse: optNum,
  customization: optNum,
  isPersonalized: optNum,
  hasCECertification: optNum,
  myProduct: optBool,
  description: optStr,
  deliveryCycle: optLabel,
  saleStatus: optLabel,
  authorityStatus: optNum,
  isAut: optNum,
  isList: optNum,
  syncListedProductStatus: optNum,
  isAd: optNum,
  activityId: optId,
  directMinOrderNum: optLabel,
  inventoryInfo: optStr,
  variantKeyEn: optStr,
  variantInventories: optStr,
  propertyKey: optStr,
});
export type ProductV2Item = z.infer<typeof ProductV2Item>;

export const ListV2Page = record({
  pageSize: optNum,
  pageNumber: optNum,
  totalRecords: optNum,
  totalPages: optNum,
  content: optList(
    record({
      productList: optList(ProductV2Item),
      relatedCategoryList: optList(record({ categoryId: optId, categoryName: optStr })),
      keyWord: optStr,
      keyWordOld: optStr,
    }),
  ),
});

export const listV2 = endpoint({
  name: 'listV2',
  method: 'GET',
  path: 'product/listV2',
  request: ListV2Request,
  response: ListV2Page,
});

// ---- globalWarehouseList ----

export const GlobalWarehouse = record({
  areaCn: optStr,
  areaEn: optStr,
  areaId: optNum,
  countryCode: optStr,
  nameEn: optStr,
  valueEn: optStr,
  disabled: optBool,
  zh: optStr,
  en: optStr,
  de: optStr,
  fr: optStr,
  th: optStr,
  id: optId,
});
export type GlobalWarehouse = z.infer<typeof GlobalWarehouse>;

export const globalWarehouseList = endpoint({
  name: 'globalWarehouseList',
  method: 'GET',
  path: 'product/globalWarehouseList',
  transport: 'none',
  request: z.object({}),
  response: optList(GlobalWarehouse),
});

// ---- product/list, v1 ----

export const ListProductsRequest = z.object({
  pageNum: int().min(1, { error: 'must be at least 1' }).optional(),
  pageSize: intIn(1, 200).optional(),
  // Lengths the vendor leaves out are bounded at 200, like the other free-text filters.
  categoryId: optText(200),
  pid: optText(200),
  productSku: optText(200),
  productName: optText(200),
  productNameEn: optText(200),
  productType: z
    .enum(['ORDINARY_PRODUCT', 'SUPPLIER_PRODUCT'], {
      error: 'must be ORDINARY_PRODUCT or SUPPLIER_PRODUCT',
    })
    .optional(),
  /** Hours. */
  deliveryTime: oneOf([24, 48, 72]).optional(),
  verifiedWarehouse: oneOf([1, 2]).optional(),
  startInventory: int().optional(),
  endInventory: int().optional(),
  createTimeFrom: dateTime(),
  createTimeTo: dateTime(),
  brandOpenId: optLong(),
  minPrice: amount().optional(),
  maxPrice: amount().optional(),
  countryCode: optText(200),
  searchType: oneOf([0, 2, 21]).optional(),
  minListedNum: int().optional(),
  maxListedNum: int().optional(),
  sort: sortOrder(),
  orderBy: z.enum(['createAt', 'listedNum'], { error: 'must be createAt or listedNum' }).optional(),
  isSelfPickup: flag(),
  supplierId: optText(40),
  isFreeShipping: flag(),
  customizationVersion: intIn(1, 5).optional(),
});

/** Product list item (v1). */
export const ProductV1Item = record({
  pid: id,
  /** A JSON array of names, as text. */
  productName: optStr,
  productNameEn: optStr,
  productSku: optStr,
  productImage: optStr,
  productWeight: optNum,
  productType: optStr,
  productUnit: optStr,
  sellPrice: optMoney,
  categoryId: optId,
  categoryName: optStr,
  remark: optStr,
  createTime: optLabel,
  isVideo: optNum,
  saleStatus: optNum,
  listedNum: optNum,
  supplierName: optStr,
  supplierId: optId,
  /** Deprecated: use isFreeShipping. */
  addMarkStatus: optNum,
  isFreeShipping: optBool,
  customizationVersion: optNum,
});
export type ProductV1Item = z.infer<typeof ProductV1Item>;

export const listProducts = endpoint({
  name: 'listProducts',
  method: 'GET',
  path: 'product/list',
  request: ListProductsRequest,
  response: record({
    pageNum: optNum,
    pageSize: optNum,
    total: optNum,
    list: optList(ProductV1Item),
  }),
});

// ---- product/query, detail ----

export const QueryProductRequest = z
  .object({
    pid: optText(200),
    productSku: optText(200),
    variantSku: optText(200),
    features: list(
      z.enum(['enable_combine', 'enable_video'], {
        error: 'must be enable_combine or enable_video',
      }),
    ).optional(),
    /** Only variants with stock in this country are returned. */
    countryCode: optText(2),
  })
  .refine((q) => [q.pid, q.productSku, q.variantSku].some((v) => v !== undefined && v !== ''), {
    error: 'one of pid, productSku or variantSku is required',
    path: ['pid'],
  });

export const ProductVariant = record({
  vid: id,
  pid: optId,
  variantName: optStr,
  variantNameEn: optStr,
  variantSku: optStr,
  barcode: optLabel,
  barcode2: optLabel,
  variantImage: optStr,
  variantStandard: optStr,
  variantUnit: optStr,
  variantKey: optStr,
  /** mm */
  variantLength: optNum,
  variantWidth: optNum,
  variantHeight: optNum,
  /** mm3 */
  variantVolume: optNum,
  /** g */
  variantWeight: optNum,
  variantSellPrice: optMoney,
  variantSugSellPrice: optMoney,
  createTime: optLabel,
  combineVariants: optList(record({ vid: optId })),
  combineNum: optNum,
});
export type ProductVariant = z.infer<typeof ProductVariant>;

/** Product detail, with its variants. */
export const ProductDetail = record({
  pid: id,
  productName: optStr,
  productNameEn: optStr,
  productSku: optStr,
  bigImage: optStr,
  productImageSet: optList(z.string()),
  /** Grams; a min-max range joined by a hyphen when variants differ. */
  productWeight: optLabel,
  productUnit: optStr,
  productType: optStr,
  categoryId: optId,
  /** Three levels joined by ' > '. */
  categoryName: optStr,
  entryCode: optLabel,
  entryName: optStr,
  entryNameEn: optStr,
  materialNameSet: optList(z.string()),
  materialNameEnSet: optList(z.string()),
  packingWeight: optLabel,
  packingName: optStr,
  packingNameEn: optStr,
  packingKey: optStr,
  productKey: optStr,
  productKeyEn: optStr,
  productProSet: optList(z.string()),
  /** Feeds `productProp` of freightCalculateTip. */
  productProEnSet: optList(z.string()),
  productVideo: optList(z.string()),
  status: optLabel,
  suggestSellPrice: optLabel,
  listedNum: optNum,
  supplierName: optStr,
  supplierId: optId,
  description: optStr,
  addMarkStatus: optNum,
  createTime: optLabel,
  customizationVersion: optNum,
  customizationJson1: optStr,
  customizationJson2: optStr,
  customizationJson3: optStr,
  customizationJson4: optStr,
  variants: optList(ProductVariant),
});
export type ProductDetail = z.infer<typeof ProductDetail>;

export const queryProduct = endpoint({
  name: 'queryProduct',
  method: 'GET',
  path: 'product/query',
  request: QueryProductRequest,
  response: ProductDetail,
});

// ---- addToMyProduct ----

/** data: true. Already added: code 1600000 (the same code as "system busy"). */
export const addToMyProduct = endpoint({
  name: 'addToMyProduct',
  method: 'POST',
  path: 'product/addToMyProduct',
  request: z.object({ productId: text(100) }),
  response: z.unknown(),
});

// ---- myProduct/query ----

export const QueryMyProductsRequest = z.object({
  keyword: optText(200),
  categoryId: optText(200),
  startAt: optText(200),
  endAt: optText(200),
  isListed: int().optional(),
  visiable: int().optional(),
  hasPacked: int().optional(),
  hasVirPacked: int().optional(),
  // Paging is not in the vendor's parameter list although the result is paged. Observed (several
  // integrations, docs/supplier-api.md §13): pageNumber and pageSize; no documented maximum.
  pageNumber: int().min(1, { error: 'must be at least 1' }).optional(),
  pageSize: int().min(1, { error: 'must be at least 1' }).optional(),
});

/**
 * My-product list item. The vendor shows only productId, packWeight and weight; nameEn, sku,
 * bigImage and sellPrice are observed in integrations (uncertain); the rest passes through.
 */
export const MyProductItem = record({
  productId: id,
  packWeight: optLabel,
  weight: optLabel,
  nameEn: optStr,
  sku: optStr,
  bigImage: optStr,
  sellPrice: optMoney,
});
export type MyProductItem = z.infer<typeof MyProductItem>;

export const queryMyProducts = endpoint({
  name: 'queryMyProducts',
  method: 'GET',
  path: 'product/myProduct/query',
  request: QueryMyProductsRequest,
  response: record({
    pageSize: optNum,
    pageNumber: optNum,
    totalRecords: optNum,
    totalPages: optNum,
    content: optList(MyProductItem),
  }),
});

export const catalogueEndpoints = {
  getCategory,
  listV2,
  globalWarehouseList,
  listProducts,
  queryProduct,
  addToMyProduct,
  queryMyProducts,
} as const;
