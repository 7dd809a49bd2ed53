/**
 * Catalogue (docs/supplier-api.md §11): category tree, product lists (V2 and v1), product detail,
 * global warehouses, and the account's "My Products", all from the seed catalogue.
 */
import {
  addToMyProduct,
  getCategory,
  globalWarehouseList,
  listProducts,
  listV2,
  queryMyProducts,
  queryProduct,
  SupplierCode,
} from 'dropflow/supplier';
import {
  countryCodes,
  dateTime,
  hasStockInAny,
  imageUrl,
  listedNum,
  matchesKeyword,
  page,
  pageCount,
  productByRef,
  stockInCountry,
  SUPPLIER_ID,
  SUPPLIER_NAME,
  totalStock,
} from '../catalogue.js';
import { SandboxError, paramError, type SandboxRouter } from '../routing.js';
import {
  CATEGORIES,
  findProduct,
  PRODUCTS,
  STORAGES,
  type SeedProduct,
  type SeedVariant,
} from '../seed.js';

/** docs/supplier-api.md §4.4: totalRecords of listV2 never exceeds 6000. */
const V2_TOTAL_CAP = 6000;
const PRODUCT_TYPE = 'ORDINARY_PRODUCT';

export function registerCatalogueRoutes(r: SandboxRouter): void {
  r.serve(getCategory, () => categoryTree());

  r.serve(listV2, (q, account) => {
    const countries = countryCodes(q.countryCode);
    const categories = [q.categoryId, ...(q.lv3categoryList ?? [])].filter(
      (c): c is string => c !== undefined && c !== '',
    );
    let found = PRODUCTS.filter(
      (p) =>
        matchesKeyword(p, q.keyWord) &&
        (categories.length === 0 || categories.includes(p.categoryId)) &&
        (countries === undefined || hasStockInAny(p, countries)) &&
        (q.startSellPrice === undefined || p.sellPrice >= q.startSellPrice) &&
        (q.endSellPrice === undefined || p.sellPrice <= q.endSellPrice),
    );
    found = sortV2(found, q.orderBy, q.sort);
    const size = q.size ?? 10;
    const total = Math.min(found.length, V2_TOTAL_CAP);
    const features = q.features ?? [];
    const productList = page(found.slice(0, total), q.page ?? 1, size).map((p) =>
      v2Item(p, account.myProducts.includes(p.pid), features),
    );
    return {
      pageSize: size,
      pageNumber: q.page ?? 1,
      totalRecords: total,
      totalPages: pageCount(total, size),
      content: [
        {
          productList,
          relatedCategoryList: distinctCategories(found),
          keyWord: q.keyWord?.trim() ?? '',
          keyWordOld: q.keyWord ?? '',
        },
      ],
    };
  });

  r.serve(globalWarehouseList, () =>
    STORAGES.map((s) => ({
      areaCn: s.areaEn,
      areaEn: s.areaEn,
      areaId: s.areaId,
      countryCode: s.countryCode,
      nameEn: s.areaEn,
      valueEn: s.countryCode,
      disabled: false,
      zh: s.areaEn,
      en: s.areaEn,
      de: s.areaEn,
      fr: s.areaEn,
      th: s.areaEn,
      id: String(s.areaId),
    })),
  );

  r.serve(listProducts, (q) => {
    const countries = countryCodes(q.countryCode);
    const nameLike = (q.productName ?? q.productNameEn)?.toLowerCase();
    let found = PRODUCTS.filter(
      (p) =>
        (!q.categoryId || p.categoryId === q.categoryId) &&
        (!q.pid || p.pid === q.pid) &&
        (!q.productSku || p.productSku.toLowerCase() === q.productSku.toLowerCase()) &&
        (!nameLike || p.productNameEn.toLowerCase().includes(nameLike)) &&
        (q.productType === undefined || q.productType === PRODUCT_TYPE) &&
        (countries === undefined || hasStockInAny(p, countries)) &&
        (q.minPrice === undefined || p.sellPrice >= q.minPrice) &&
        (q.maxPrice === undefined || p.sellPrice <= q.maxPrice),
    );
    const by = q.orderBy === 'listedNum' ? listedNum : (p: SeedProduct) => p.createTime;
    found = [...found].sort((a, b) => (q.sort === 'asc' ? by(a) - by(b) : by(b) - by(a)));
    const pageNum = q.pageNum ?? 1;
    const pageSize = q.pageSize ?? 20;
    return {
      pageNum,
      pageSize,
      total: found.length,
      list: page(found, pageNum, pageSize).map(v1Item),
    };
  });

  r.serve(queryProduct, (q) => {
    const p = productByRef(q);
    // Not documented by the vendor: an unknown product is answered as a parameter error.
    if (!p)
      throw paramError(
        q.pid ? 'pid' : q.productSku ? 'productSku' : 'variantSku',
        'product not found',
      );
    const variants = q.countryCode
      ? p.variants.filter((v) => stockInCountry(v, q.countryCode ?? '') > 0)
      : p.variants;
    return productDetail(p, variants, q.features ?? []);
  });

  r.serve(addToMyProduct, ({ productId }, account) => {
    if (!findProduct(productId)) throw paramError('productId', 'product not found');
    if (account.myProducts.includes(productId)) {
      throw new SandboxError(SupplierCode.SystemBusy, 'The product is already in My Products');
    }
    account.myProducts.push(productId);
    return true;
  });

  r.serve(queryMyProducts, (q, account) => {
    const mine = account.myProducts
      .map((pid) => findProduct(pid))
      .filter((p): p is SeedProduct => p !== undefined)
      .filter(
        (p) =>
          matchesKeyword(p, q.keyword) &&
          (!q.categoryId || p.categoryId === q.categoryId) &&
          // Sandbox products are never listed to a store, visible, and not packed.
          (q.isListed === undefined || q.isListed === 0) &&
          (q.visiable === undefined || q.visiable === 1) &&
          (q.hasPacked === undefined || q.hasPacked === 0) &&
          (q.hasVirPacked === undefined || q.hasVirPacked === 0),
      );
    const pageNumber = q.pageNumber ?? 1;
    const pageSize = q.pageSize ?? 20;
    return {
      pageSize,
      pageNumber,
      totalRecords: mine.length,
      totalPages: pageCount(mine.length, pageSize),
      content: page(mine, pageNumber, pageSize).map((p) => ({
        productId: p.pid,
        nameEn: p.productNameEn,
        sku: p.productSku,
        bigImage: imageUrl(p.pid),
        sellPrice: p.sellPrice.toFixed(2),
        weight: String(p.productWeight),
        packWeight: String(p.productWeight + PACKING_GRAMS),
        categoryId: p.categoryId,
      })),
    };
  });
}

const PACKING_GRAMS = 20;

function categoryTree() {
  const firsts = [...new Set(CATEGORIES.map((c) => c.first))];
  return firsts.map((first) => {
    const inFirst = CATEGORIES.filter((c) => c.first === first);
    const seconds = [...new Set(inFirst.map((c) => c.second))];
    return {
      categoryFirstName: first,
      categoryFirstList: seconds.map((second) => ({
        categorySecondName: second,
        categorySecondList: inFirst
          .filter((c) => c.second === second)
          .map((c) => ({ categoryId: c.categoryId, categoryName: c.categoryName })),
      })),
    };
  });
}

function distinctCategories(products: SeedProduct[]) {
  const ids = [...new Set(products.map((p) => p.categoryId))];
  return ids.map((categoryId) => ({
    categoryId,
    categoryName: CATEGORIES.find((c) => c.categoryId === categoryId)?.categoryName ?? '',
  }));
}

/** orderBy: 0 best match (seed order), 1 listing count, 2 sell price, 3 create time, 4 inventory. */
function sortV2(products: SeedProduct[], orderBy: number | undefined, sort: string | undefined) {
  const key: ((p: SeedProduct) => number) | undefined =
    orderBy === 1
      ? listedNum
      : orderBy === 2
        ? (p) => p.sellPrice
        : orderBy === 3
          ? (p) => p.createTime
          : orderBy === 4
            ? totalStock
            : undefined;
  if (!key) return products;
  return [...products].sort((a, b) => (sort === 'asc' ? key(a) - key(b) : key(b) - key(a)));
}

function v2Item(p: SeedProduct, myProduct: boolean, features: readonly string[]) {
  const cat = CATEGORIES.find((c) => c.categoryId === p.categoryId);
  const stock = totalStock(p);
  return {
    id: p.pid,
    nameEn: p.productNameEn,
    sku: p.productSku,
    spu: p.productSku,
    bigImage: imageUrl(p.pid),
    sellPrice: p.sellPrice.toFixed(2),
    nowPrice: p.sellPrice.toFixed(2),
    discountPrice: p.sellPrice.toFixed(2),
    discountPriceRate: '0',
    listedNum: listedNum(p),
    isCollect: 0,
    categoryId: p.categoryId,
    ...(features.includes('enable_category') && cat
      ? {
          oneCategoryName: cat.first,
          twoCategoryName: cat.second,
          threeCategoryName: cat.categoryName,
        }
      : {}),
    ...(features.includes('enable_description') ? { description: description(p) } : {}),
    ...(features.includes('enable_video') ? { videoList: [] } : {}),
    addMarkStatus: 0,
    isVideo: 0,
    productType: '0',
    supplierName: SUPPLIER_NAME,
    createAt: p.createTime,
    warehouseInventoryNum: stock,
    totalVerifiedInventory: stock,
    totalUnVerifiedInventory: 0,
    verifiedWarehouse: 1,
    customization: 0,
    isPersonalized: 0,
    hasCECertification: 0,
    myProduct,
    deliveryCycle: '1-3',
    saleStatus: '3',
    authorityStatus: 1,
    isAut: 0,
    isList: 0,
    isAd: 0,
    variantKeyEn: 'Color',
  };
}

function v1Item(p: SeedProduct) {
  return {
    pid: p.pid,
    productName: JSON.stringify([p.productNameEn]),
    productNameEn: p.productNameEn,
    productSku: p.productSku,
    productImage: imageUrl(p.pid),
    productWeight: p.productWeight,
    productType: PRODUCT_TYPE,
    productUnit: 'unit(s)',
    sellPrice: p.sellPrice,
    categoryId: p.categoryId,
    categoryName: p.categoryName.split(' > ').at(-1) ?? p.categoryName,
    remark: '',
    createTime: dateTime(p.createTime),
    isVideo: 0,
    saleStatus: 3,
    listedNum: listedNum(p),
    supplierName: SUPPLIER_NAME,
    supplierId: SUPPLIER_ID,
    addMarkStatus: 0,
    isFreeShipping: false,
    customizationVersion: 0,
  };
}

function description(p: SeedProduct): string {
  return `${p.productNameEn}: a sandbox product in ${p.categoryName}.`;
}

function productDetail(p: SeedProduct, variants: SeedVariant[], features: readonly string[]) {
  const weights = variants.map((v) => v.variantWeight);
  const min = Math.min(...weights);
  const max = Math.max(...weights);
  return {
    pid: p.pid,
    productName: JSON.stringify([p.productNameEn]),
    productNameEn: p.productNameEn,
    productSku: p.productSku,
    bigImage: imageUrl(p.pid),
    productImageSet: [imageUrl(p.pid), imageUrl(`${p.pid}-2`)],
    productWeight:
      weights.length === 0 ? String(p.productWeight) : min === max ? String(min) : `${min}-${max}`,
    productUnit: 'unit(s)',
    productType: PRODUCT_TYPE,
    categoryId: p.categoryId,
    categoryName: p.categoryName,
    entryCode: '3926909090',
    entryName: p.productNameEn,
    entryNameEn: p.productNameEn,
    materialNameSet: ['Plastic'],
    materialNameEnSet: ['Plastic'],
    packingWeight: String(p.productWeight + PACKING_GRAMS),
    packingName: 'Poly bag',
    packingNameEn: 'Poly bag',
    packingKey: 'POLY_BAG',
    productKey: 'Color',
    productKeyEn: 'Color',
    productProSet: p.productProEnSet,
    productProEnSet: p.productProEnSet,
    ...(features.includes('enable_video') ? { productVideo: [] } : {}),
    status: '3',
    suggestSellPrice: `${(p.sellPrice * 2).toFixed(2)}-${(p.sellPrice * 3).toFixed(2)}`,
    listedNum: listedNum(p),
    supplierName: SUPPLIER_NAME,
    supplierId: SUPPLIER_ID,
    description: description(p),
    addMarkStatus: 0,
    createTime: dateTime(p.createTime),
    customizationVersion: 0,
    variants: variants.map((v, i) => ({
      vid: v.vid,
      pid: v.pid,
      variantName: v.variantNameEn,
      variantNameEn: v.variantNameEn,
      variantSku: v.variantSku,
      barcode: `69${p.pid.slice(1)}${String(i + 1).padStart(6, '0')}`,
      variantImage: imageUrl(v.vid),
      variantStandard: `long=${v.variantLength}, width=${v.variantWidth}, height=${v.variantHeight}`,
      variantUnit: 'unit(s)',
      variantKey: v.variantKey,
      variantLength: v.variantLength,
      variantWidth: v.variantWidth,
      variantHeight: v.variantHeight,
      variantVolume: v.variantLength * v.variantWidth * v.variantHeight,
      variantWeight: v.variantWeight,
      variantSellPrice: v.variantSellPrice,
      variantSugSellPrice: Math.round(v.variantSellPrice * 250) / 100,
      createTime: dateTime(p.createTime),
      combineVariants: [],
      combineNum: 0,
    })),
  };
}
