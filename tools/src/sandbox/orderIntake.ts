/**
 * createOrderV2/V3 in the sandbox: duplicate check, variant look-up (catalogue flow) or
 * connection look-up (store flow), storage choice, pricing and interceptions.
 */
import type { z } from 'zod';
import {
  OrderFlow,
  OrderStatus,
  ShopLogisticsType,
  type CreateOrderV3Request,
  ShopProductStatus,
  SupplierCode,
} from 'dropflow/supplier';
import { connectionFor } from './connectOrders.js';
import { availableUnits } from './interceptions.js';
import { evaluateOrder, ordersOf, priceOrder, surchargeFor } from './orderBook.js';
import { paramError, SandboxError } from './routing.js';
import type { Sandbox } from './sandbox.js';
import { findStorage, findVariant, STORAGES } from './seed.js';
import { DEFAULT_SHOP_ID, DEFAULT_SHOP_NAME, storeProductKey } from './shops.js';
import type { OrderLine, SandboxAccount, SandboxOrder } from './state.js';

export type CreateOrderInput = z.output<typeof CreateOrderV3Request> & { payType?: 1 | 2 | 3 };
type Item = CreateOrderInput['products'][number];

/** Builds, prices and files a new order; throws the supplier's refusals. */
export function intakeOrder(
  sb: Sandbox,
  account: SandboxAccount,
  input: CreateOrderInput,
): SandboxOrder {
  const openId = account.openId;
  if (ordersOf(sb, openId).some((o) => o.orderNumber === input.orderNumber)) {
    sb.count(openId, (s) => (s.duplicateCreatesRefused += 1));
    throw new SandboxError(
      SupplierCode.DuplicateOrder,
      'Order exist, please do not duplicate create',
    );
  }
  if (input.storeOrderTime !== undefined && input.storeOrderTime * 1000 > sb.now()) {
    throw paramError('storeOrderTime', 'must not be later than the current time');
  }
  if (input.storeName !== undefined && input.storeName !== DEFAULT_SHOP_NAME) {
    throw paramError('storeName', `must equal the name of an API store ("${DEFAULT_SHOP_NAME}")`);
  }

  const from = input.fromCountryCode.toUpperCase();
  const shopLogisticsType = input.shopLogisticsType ?? ShopLogisticsType.Supplier;
  if (shopLogisticsType === ShopLogisticsType.PlatformFromStorage) {
    const storage = findStorage(input.storageId ?? '');
    if (!storage) throw paramError('storageId', `unknown storage "${input.storageId}"`);
    if (storage.countryCode !== from) {
      throw paramError(
        'fromCountryCode',
        `must be ${storage.countryCode}, the country of storage ${storage.storageId}`,
      );
    }
  }

  const storeFlow = input.orderFlow === OrderFlow.Store;
  const lines = input.products.map((p, i) =>
    storeFlow ? storeLine(sb, openId, p) : catalogueLine(sb, p, i),
  );
  const awaitingConnection = lines.some((l) => l.vid === '');

  const svcOrderId = sb.nextId('SO');
  const order: SandboxOrder = {
    svcOrderId,
    svcOrderCode: `SC${svcOrderId.slice(2)}`,
    openId,
    orderNumber: input.orderNumber,
    request: { ...input },
    status: OrderStatus.Created,
    lines,
    logisticName: input.logisticName,
    shopLogisticsType,
    fromCountryCode: from,
    isSandbox: input.isSandbox === 1,
    productAmount: 0,
    postageAmount: 0,
    orderAmount: 0,
    interceptReasons: [],
    logisticsMiss: false,
    proofOfDelivery: [],
    createdAt: sb.now(),
  };
  if (awaitingConnection) order.awaitingConnection = true;
  if (shopLogisticsType === ShopLogisticsType.PlatformFromStorage)
    order.storageId = input.storageId;
  if (shopLogisticsType === ShopLogisticsType.PlatformSupplierStorage)
    order.storageId = chooseStorage(sb, from, lines);

  priceOrder(order, surchargeFor(sb, order.openId, order.logisticName));
  evaluateOrder(sb, order);
  sb.state.orders[svcOrderId] = order;
  sb.count(openId, (s) => (s.ordersCreated += 1));
  return order;
}

function catalogueLine(sb: Sandbox, p: Item, i: number): OrderLine {
  const variant = findVariant(p.vid, p.sku);
  if (!variant) {
    throw p.vid
      ? paramError(`products[${i}].vid`, `unknown variant "${p.vid}"`)
      : paramError(`products[${i}].sku`, `unknown variant SKU "${p.sku}"`);
  }
  if (p.vid && p.sku && variant.variantSku !== p.sku) {
    throw paramError(`products[${i}].sku`, `"${p.sku}" is not the SKU of variant ${p.vid}`);
  }
  return line(sb, p, variant.vid, variant.variantSellPrice);
}

/**
 * Store flow: vid is the store-side variant id. A connected variant orders its catalogue
 * variant; an unconnected one gets a store product record and leaves the line without a vid, so
 * the order waits for its connection (docs/supplier-api.md §6.3).
 */
function storeLine(sb: Sandbox, openId: string, p: Item): OrderLine {
  const storeProductId = p.storeProductId!;
  const storeVariantId = p.vid!;
  const out = line(sb, p, '', 0);
  out.storeProductId = storeProductId;
  out.storeVariantId = storeVariantId;
  const connection = connectionFor(sb.state.connections, openId, DEFAULT_SHOP_ID, out);
  const variant = connection ? findVariant(connection.svcVariantId) : undefined;
  if (variant) {
    out.vid = variant.vid;
    out.sellPrice = variant.variantSellPrice;
  } else {
    recordStoreProduct(sb, openId, p);
  }
  return out;
}

function recordStoreProduct(sb: Sandbox, openId: string, p: Item): void {
  const key = storeProductKey(openId, DEFAULT_SHOP_ID, p.storeProductId!);
  const now = sb.now();
  const product = (sb.state.storeProducts[key] ??= {
    shopId: DEFAULT_SHOP_ID,
    id: p.storeProductId!,
    openId,
    title: p.storeProductName ?? p.storeProductId!,
    image: p.storeProductImg!,
    status: ShopProductStatus.Listed,
    variants: [],
    createdAt: now,
  });
  if (product.openId !== openId || product.variants.some((v) => v.id === p.vid)) return;
  product.variants.push({
    id: p.vid!,
    productId: product.id,
    title: p.variantOptions ?? p.storeProductName ?? p.vid!,
    sku: p.storeSku ?? '',
    image: p.storeProductImg!,
    ...(p.unitPrice === undefined ? {} : { shopPrice: p.unitPrice, shopPriceCurrency: 'USD' }),
    createdAt: now,
  });
}

function line(sb: Sandbox, p: Item, vid: string, sellPrice: number): OrderLine {
  const out: OrderLine = { vid, quantity: p.quantity, sellPrice, lineItemId: sb.nextId('LI') };
  if (p.storeLineItemId !== undefined) out.storeLineItemId = p.storeLineItemId;
  return out;
}

/**
 * shopLogisticsType 3: the service picks a storage in the origin country, one with stock for
 * every line when there is one.
 */
function chooseStorage(sb: Sandbox, from: string, lines: readonly OrderLine[]): string {
  const candidates = STORAGES.filter((s) => s.countryCode === from);
  if (candidates.length === 0) {
    throw paramError('fromCountryCode', `no platform warehouse in ${from} (shopLogisticsType 3)`);
  }
  const orders = Object.values(sb.state.orders);
  const stocked = candidates.find((s) =>
    lines.every((l) => l.vid === '' || availableUnits(orders, s.storageId, l.vid) >= l.quantity),
  );
  return (stocked ?? candidates[0]!).storageId;
}
