/**
 * Shops, store products and connections (docs/supplier-api.md §10). Every account has one API-type
 * shop (../shops.ts); store products are saved into it (or recorded by store-flow orders); a
 * connection links a store variant to a catalogue variant and connects waiting orders.
 */
import {
  createConnection,
  deleteConnection,
  getShops,
  InventoryItemStatus,
  listConnections,
  queryStoreProductDetail,
  queryStoreProducts,
  RelevanceStatus,
  saveStoreProduct,
  saveStoreVariants,
  ShopProductStatus,
  VariantRelevanceStatus,
} from 'dropflow/supplier';
import { connectAwaitingOrders } from '../connectOrders.js';
import { paramError, type SandboxRouter } from '../routing.js';
import type { Sandbox } from '../sandbox.js';
import { findProduct, findVariant } from '../seed.js';
import {
  DEFAULT_SHOP_ID,
  findShop,
  findStoreProduct,
  type SandboxShop,
  shopsOf,
  storeProductKey,
} from '../shops.js';
import type { Connection, SandboxAccount, StoreProduct, StoreVariant } from '../state.js';

export function registerShopRoutes(r: SandboxRouter): void {
  r.serve(getShops, (_input, account) => shopsOf(account));

  r.serve(saveStoreProduct, (input, account, sb) => {
    const key = storeProductKey(account.openId, DEFAULT_SHOP_ID, input.id);
    const existing = sb.state.storeProducts[key];
    sb.state.storeProducts[key] = {
      shopId: DEFAULT_SHOP_ID,
      id: input.id,
      openId: account.openId,
      title: input.title,
      image: input.image,
      description: input.description,
      priceMin: input.priceMin,
      priceMax: input.priceMax,
      priceCurrency: input.priceCurrency,
      status: existing?.status ?? ShopProductStatus.Listed,
      variants: existing?.variants ?? [],
      createdAt: existing?.createdAt ?? sb.now(),
    };
    return true;
  });

  r.serve(saveStoreVariants, ({ variants }, account, sb) =>
    variants.map((v) => {
      const product = findStoreProduct(
        sb.state.storeProducts,
        account.openId,
        DEFAULT_SHOP_ID,
        v.productId,
      );
      if (!product) {
        return {
          id: v.id,
          productId: v.productId,
          saveSuccess: false,
          saveFailMessage: `product ${v.productId} not found: save it with saveProduct first`,
        };
      }
      const earlier = product.variants.find((x) => x.id === v.id);
      const variant: StoreVariant = {
        id: v.id,
        productId: v.productId,
        title: v.title,
        sku: v.sku,
        image: v.image,
        shopPrice: v.shopPrice,
        shopPriceCurrency: v.shopPriceCurrency,
        weight: v.weight,
        weightUnit: v.weightUnit,
        createdAt: earlier?.createdAt ?? sb.now(),
      };
      product.variants = [...product.variants.filter((x) => x.id !== v.id), variant];
      return { id: v.id, productId: v.productId, saveSuccess: true, saveFailMessage: null };
    }),
  );

  r.serve(queryStoreProducts, (q, account, sb) => {
    const pageNum = Math.max(1, q.pageNum ?? 1);
    const pageSize = q.pageSize ?? 10;
    const search = q.searchKey?.toLowerCase();
    const matching = productsOf(sb, account)
      .filter((p) => q.shopId === undefined || p.shopId === q.shopId)
      .filter((p) => q.shopProductId === undefined || p.id === q.shopProductId)
      .filter((p) => search === undefined || p.title.toLowerCase().includes(search))
      .map((p) => ({ p, relevance: relevance(sb, p) }))
      .filter(
        ({ relevance }) =>
          q.relevanceStatusValues === undefined ||
          q.relevanceStatusValues.length === 0 ||
          q.relevanceStatusValues.includes(relevance),
      );
    return {
      pageNum,
      pageSize,
      total: matching.length,
      list: matching
        .slice((pageNum - 1) * pageSize, pageNum * pageSize)
        .map(({ p }) => listItem(sb, account, p)),
    };
  });

  r.serve(queryStoreProductDetail, ({ shopId, platformProductIds }, account, sb) =>
    platformProductIds
      .map((id) => findStoreProduct(sb.state.storeProducts, account.openId, shopId, id))
      .filter((p) => p !== undefined)
      .map((p) => {
        const links = connectionsOf(sb, p);
        return {
          ...listItem(sb, account, p),
          variants: p.variants.map((v) => ({
            platformProductId: p.id,
            platformVariantId: v.id,
            platformVariantSku: v.sku,
            platformVariantTitle: v.title,
            platformVariantImage: v.image,
            price: v.shopPrice ?? null,
            // The sandbox treats every shop price as USD.
            priceUSD: v.shopPrice ?? null,
            priceCurrency: v.shopPriceCurrency ?? null,
            grams: grams(v),
            weight: v.weight ?? null,
            weightUnit: v.weightUnit ?? null,
            relevanceStatus: links.some((c) => c.platformVariantId === v.id)
              ? VariantRelevanceStatus.Connected
              : VariantRelevanceStatus.Unconnected,
            inventoryItemStatus: InventoryItemStatus.Unused,
            shopProductStatus: p.status,
            createDateTime: v.createdAt,
          })),
        };
      }),
  );

  r.serve(listConnections, (q, account, sb) => {
    const shop = findShop(account, q.shopId);
    const page = Math.max(1, q.page ?? 1);
    const pageSize = q.pageSize ?? 10;
    const matching = sb.state.connections.filter(
      (c) =>
        c.openId === account.openId &&
        c.shopId === shop?.id &&
        (q.platformProductId === undefined || c.platformProductId === q.platformProductId) &&
        (q.platformVariantId === undefined || c.platformVariantId === q.platformVariantId),
    );
    return {
      total: matching.length,
      list: matching.slice((page - 1) * pageSize, page * pageSize).map(connectionRecord),
    };
  });

  r.serve(createConnection, (input, account, sb) => {
    const shop = requireShop(account, input.shopId);
    const product = findStoreProduct(
      sb.state.storeProducts,
      account.openId,
      shop.id,
      input.platformProductId,
    );
    if (!product) {
      throw paramError(
        'platformProductId',
        'store product not found: save it with saveProduct or order it in the store flow first',
      );
    }
    if (!findProduct(input.svcProductId)) {
      throw paramError('svcProductId', 'is not a catalogue product');
    }
    input.variantList.forEach((v, i) => {
      if (findVariant(v.svcVariantId)?.pid !== input.svcProductId) {
        throw paramError(
          `variantList[${i}].svcVariantId`,
          `is not a variant of catalogue product ${input.svcProductId}`,
        );
      }
      // A product saved without variants is connected as a whole, under any variant id.
      if (
        product.variants.length > 0 &&
        !product.variants.some((x) => x.id === v.platformVariantId)
      ) {
        throw paramError(
          `variantList[${i}].platformVariantId`,
          `is not a variant of store product ${product.id}`,
        );
      }
    });
    for (const v of input.variantList) {
      const link: Connection = {
        openId: account.openId,
        shopId: shop.id,
        platformProductId: product.id,
        platformVariantId: v.platformVariantId,
        svcProductId: input.svcProductId,
        svcVariantId: v.svcVariantId,
        defaultArea: input.defaultArea,
        logistics: input.logistics,
        sourceCountryCode: input.sourceCountryCode,
        sourceCountry: input.sourceCountry,
        targetCountryCode: input.targetCountryCode,
        targetCountry: input.targetCountry,
      };
      sb.state.connections = [...sb.state.connections.filter((c) => !sameLink(c, link)), link];
    }
    connectAwaitingOrders(sb, account.openId);
    return true;
  });

  r.serve(deleteConnection, (q, account, sb) => {
    const shop = requireShop(account, q.shopId);
    sb.state.connections = sb.state.connections.filter(
      (c) =>
        !(
          c.openId === account.openId &&
          c.shopId === shop.id &&
          c.platformProductId === q.platformProductId &&
          (q.platformVariantId === undefined || c.platformVariantId === q.platformVariantId)
        ),
    );
    return true;
  });
}

function requireShop(account: SandboxAccount, shopId: string | undefined): SandboxShop {
  const shop = findShop(account, shopId);
  if (!shop) throw paramError('shopId', 'is not a shop of the account');
  return shop;
}

function productsOf(sb: Sandbox, account: SandboxAccount): StoreProduct[] {
  return Object.values(sb.state.storeProducts)
    .filter((p) => p.openId === account.openId)
    .sort((a, b) => b.createdAt - a.createdAt || a.id.localeCompare(b.id));
}

function connectionsOf(sb: Sandbox, p: StoreProduct): Connection[] {
  return sb.state.connections.filter(
    (c) => c.openId === p.openId && c.shopId === p.shopId && c.platformProductId === p.id,
  );
}

function relevance(sb: Sandbox, p: StoreProduct): RelevanceStatus {
  const links = connectionsOf(sb, p);
  if (links.length === 0) return RelevanceStatus.Unconnected;
  const connected = p.variants.filter((v) => links.some((c) => c.platformVariantId === v.id));
  if (connected.length < p.variants.length) return RelevanceStatus.Partly;
  return p.status === ShopProductStatus.Delisted
    ? RelevanceStatus.DelistedConnected
    : RelevanceStatus.Connected;
}

function listItem(sb: Sandbox, account: SandboxAccount, p: StoreProduct) {
  const shop = findShop(account, p.shopId);
  return {
    shopId: p.shopId,
    shopName: shop?.name ?? null,
    shopType: shop?.type ?? null,
    platformProductId: p.id,
    platformProductTitle: p.title,
    platformProductImage: p.image,
    platformProductPrices: priceRange(p),
    platformProductPricesCurrency: p.priceCurrency ?? p.variants[0]?.shopPriceCurrency ?? null,
    platformProductHandle: null,
    platformProductType: null,
    platformProductCategoryId: null,
    platformProductTags: null,
    shopProductStatus: p.status,
    relevanceStatus: relevance(sb, p),
    createDateTime: p.createdAt,
  };
}

function priceRange(p: StoreProduct): string | null {
  const prices =
    p.priceMin !== undefined || p.priceMax !== undefined
      ? [p.priceMin ?? p.priceMax!, p.priceMax ?? p.priceMin!]
      : p.variants.flatMap((v) => (v.shopPrice === undefined ? [] : [v.shopPrice]));
  if (prices.length === 0) return null;
  const min = Math.min(...prices).toFixed(2);
  const max = Math.max(...prices).toFixed(2);
  return min === max ? min : `${min}-${max}`;
}

const GRAMS_PER_UNIT: Record<string, number> = { g: 1, kg: 1000, lb: 453.592, oz: 28.3495 };

function grams(v: StoreVariant): string | null {
  if (v.weight === undefined) return null;
  return String(Math.round(v.weight * (GRAMS_PER_UNIT[v.weightUnit?.toLowerCase() ?? 'g'] ?? 1)));
}

function sameLink(a: Connection, b: Connection): boolean {
  return (
    a.openId === b.openId &&
    a.shopId === b.shopId &&
    a.platformProductId === b.platformProductId &&
    a.platformVariantId === b.platformVariantId
  );
}

function connectionRecord(c: Connection) {
  return {
    shopId: c.shopId,
    platformProductId: c.platformProductId,
    platformVariantId: c.platformVariantId,
    svcProductId: c.svcProductId,
    svcVariantId: c.svcVariantId,
    defaultArea: c.defaultArea,
    logistics: c.logistics,
    sourceCountryCode: c.sourceCountryCode ?? null,
    sourceCountry: c.sourceCountry ?? null,
    targetCountryCode: c.targetCountryCode ?? null,
    targetCountry: c.targetCountry ?? null,
  };
}
