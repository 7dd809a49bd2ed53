/**
 * How a sandbox order looks from outside: the order object of the detail, batch and list queries
 * (docs/supplier-api.md §6.4), the create-order result (§7.1), and the params of the order and
 * logistics webhook messages (§12.5, §12.6).
 */
import { OrderStatus, TrackingStatus, UnshippedSubStatus } from 'dropflow/supplier';
import { DEFAULT_SHOP_ID, DEFAULT_SHOP_NAME } from './shops.js';
import { findLine, findStorage, findVariant } from './seed.js';
import type { SandboxOrder } from './state.js';

/** yyyy-MM-dd HH:mm:ss in UTC, as the supplier writes dates; null when unset. */
export function utcDate(ms: number | undefined): string | null {
  return ms === undefined ? null : new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** Parcel weight in grams from the seed weights of the connected lines. */
export function orderWeight(order: SandboxOrder): number {
  return order.lines.reduce((g, l) => g + (findVariant(l.vid)?.variantWeight ?? 0) * l.quantity, 0);
}

interface Carrier {
  name: string;
  trackingPage: string;
}

const CARRIERS: { match: RegExp; carrier: Carrier }[] = [
  {
    match: /usps/i,
    carrier: {
      name: 'USPS',
      trackingPage: 'https://tools.usps.com/go/TrackConfirmAction?tLabels=',
    },
  },
  {
    match: /\bups\b/i,
    carrier: { name: 'UPS', trackingPage: 'https://www.ups.com/track?tracknum=' },
  },
  {
    match: /fedex/i,
    carrier: { name: 'FedEx', trackingPage: 'https://www.fedex.com/fedextrack/?trknbr=' },
  },
  {
    match: /dhl/i,
    carrier: {
      name: 'DHL',
      trackingPage: 'https://www.dhl.com/global-en/home/tracking.html?tracking-id=',
    },
  },
];

/**
 * A page for carriers the sandbox has no page for (docs/supplier-api.md §6.4: a generic tracker
 * page).
 */
const GENERIC_TRACKER = 'https://www.17track.net/en/track?nums=';

function carrierOf(name: string | undefined): Carrier | undefined {
  return name === undefined ? undefined : CARRIERS.find((c) => c.match.test(name))?.carrier;
}

/** The carrier that moves the parcel: the waybill's, or the one behind the logistics line. */
export function trackingProvider(order: SandboxOrder): string | null {
  return (
    order.trackingProvider ?? order.waybill?.carrier ?? carrierOf(order.logisticName)?.name ?? null
  );
}

/** Carrier page plus tracking number; null without a tracking number. */
export function trackingUrl(order: SandboxOrder): string | null {
  if (order.trackNumber === undefined) return null;
  const carrier = carrierOf(trackingProvider(order) ?? undefined) ?? carrierOf(order.logisticName);
  return (carrier?.trackingPage ?? GENERIC_TRACKER) + encodeURIComponent(order.trackNumber);
}

const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export type OrderShape = 'detail' | 'batch' | 'list';

/**
 * The order object. The list shape omits subStatus, svcOrderCode and the fields after
 * isComplete (keeping productList); the batch shape has no logisticsTimeliness (features are
 * unsupported there).
 */
export function orderObject(
  order: SandboxOrder,
  shape: OrderShape,
  features: readonly string[] = [],
): Record<string, unknown> {
  const r = order.request;
  const storeOrderTime = typeof r.storeOrderTime === 'number' ? r.storeOrderTime * 1000 : undefined;
  const base: Record<string, unknown> = {
    orderId: order.svcOrderId,
    orderNum: order.orderNumber,
    platformOrderId: null,
    svcOrderId: order.svcOrderId,
    ...(shape === 'list' ? {} : { svcOrderCode: order.svcOrderCode }),
    fromCountryCode: order.fromCountryCode,
    shippingCountryCode: text(r.shippingCountryCode),
    shippingProvince: text(r.shippingProvince),
    shippingCity: text(r.shippingCity),
    shippingAddress: text(r.shippingAddress),
    shippingCustomerName: text(r.shippingCustomerName),
    shippingPhone: text(r.shippingPhone),
    remark: text(r.remark),
    logisticName: order.logisticName,
    trackNumber: order.trackNumber ?? null,
    trackingProvider: order.trackNumber === undefined ? null : trackingProvider(order),
    trackingUrl: trackingUrl(order),
    disputeId: order.disputeId ?? null,
    disputeOpenedId: order.disputeId ?? null,
    orderWeight: orderWeight(order),
    orderAmount: order.orderAmount,
    productAmount: order.productAmount,
    postageAmount: order.postageAmount,
    orderStatus: order.status,
    ...(shape === 'list' ? {} : { subStatus: subStatusOf(order) }),
    createDate: utcDate(order.createdAt),
    paymentDate: utcDate(order.paidAt),
    storeCreateDate: utcDate(storeOrderTime),
    outWarehouseTime: utcDate(order.shippedAt),
    isComplete: 1,
  };
  const productList = order.lines.map((l) => ({
    vid: l.vid,
    quantity: l.quantity,
    sellPrice: l.sellPrice,
    storeLineItemId: l.storeLineItemId ?? null,
    lineItemId: l.lineItemId,
    orderNumber: order.orderNumber,
    productionOrderStatus: null,
    abnormalType: null,
    podPropertiesInfo: null,
  }));
  if (shape === 'list') return { ...base, productList };
  const storage = order.storageId === undefined ? undefined : findStorage(order.storageId);
  const line = findLine(order.logisticName);
  return {
    ...base,
    isSandbox: order.isSandbox ? 1 : 0,
    storageId: order.storageId ?? null,
    storageName: storage?.name ?? null,
    privateOutboundOrder: false,
    shopId: DEFAULT_SHOP_ID,
    shopName: DEFAULT_SHOP_NAME,
    // Shape not shown: the sandbox gives the line's business-day range.
    logisticsTimeliness:
      shape === 'detail' && features.length > 0 && line
        ? { logisticName: line.logisticName, arrivalTime: `${line.days[0]}-${line.days[1]}` }
        : null,
    productList,
  };
}

/** An unshipped order's sub-status (PENDING until the lifecycle says more); null otherwise. */
function subStatusOf(order: SandboxOrder): UnshippedSubStatus | null {
  return order.status === OrderStatus.Unshipped
    ? (order.subStatus ?? UnshippedSubStatus.Pending)
    : null;
}

/** The data of createOrderV2/V3 (docs/supplier-api.md §7.1). */
export function createOrderData(order: SandboxOrder, svcPayUrl?: string): Record<string, unknown> {
  return {
    // A store-flow order awaiting its connection has no id the caller can use yet.
    ...(order.awaitingConnection ? {} : { orderId: order.svcOrderId }),
    orderNumber: order.orderNumber,
    shipmentOrderId: order.shipmentOrderId ?? null,
    iossAmount: 0,
    iossTaxHandlingFee: 0,
    postageAmount: order.postageAmount,
    productAmount: order.productAmount,
    productOriginalAmount: order.productAmount,
    productDiscountAmount: 0,
    postageDiscountAmount: 0,
    postageOriginalAmount: order.postageAmount,
    totalDiscountAmount: 0,
    actualPayment: order.orderAmount,
    orderOriginalAmount: order.orderAmount,
    svcPayUrl: svcPayUrl ?? null,
    orderAmount: order.orderAmount,
    logisticsMiss: order.logisticsMiss,
    orderStatus: order.status,
    productInfoList: order.lines.map((l) => ({
      storeLineItemId: l.storeLineItemId ?? null,
      lineItemId: l.lineItemId,
      variantId: l.vid === '' ? null : l.vid,
      quantity: l.quantity,
      isGroup: false,
      subOrderProducts: [],
    })),
    interceptOrderReasons: order.interceptReasons,
  };
}

/** params of an order-topic message (type ORDER). */
export function orderWebhookParams(order: SandboxOrder, now: number): Record<string, unknown> {
  return {
    svcOrderId: order.svcOrderId,
    orderNumber: order.orderNumber,
    orderStatus: order.status,
    subStatus: subStatusOf(order),
    logisticName: order.logisticName,
    trackNumber: order.trackNumber ?? null,
    trackingUrl: trackingUrl(order),
    trackingProvider: order.trackNumber === undefined ? null : trackingProvider(order),
    createDate: utcDate(order.createdAt),
    updateDate: utcDate(now),
    payDate: utcDate(order.paidAt),
    deliveryDate: utcDate(order.shippedAt),
    completeDate: utcDate(order.deliveredAt),
    privateOutboundOrder: false,
    orderItems: order.lines.map((l) => ({
      vid: l.vid,
      quantity: l.quantity,
      sellPrice: l.sellPrice,
      lineItemId: l.lineItemId,
      storeLineItemId: l.storeLineItemId ?? null,
      productionOrderStatus: null,
      abnormalType: [],
    })),
  };
}

/** params of a logistics-topic message (type LOGISTIC); the events travel as a JSON string. */
export function logisticsWebhookParams(order: SandboxOrder): Record<string, unknown> {
  const to = text(order.request.shippingCity) ?? text(order.request.shippingCountryCode) ?? '';
  const storage = order.storageId === undefined ? undefined : findStorage(order.storageId);
  const events = [];
  if (order.shippedAt !== undefined) {
    events.push({
      status: TrackingStatus.WarehouseOutbound,
      activity: 'Departed the warehouse',
      location: storage?.city ?? order.fromCountryCode,
      eventTime: utcDate(order.shippedAt),
      statusDesc: 'Warehouse outbound',
    });
  }
  if (order.deliveredAt !== undefined) {
    events.push({
      status: TrackingStatus.Delivered,
      activity: 'Delivered',
      location: to,
      eventTime: utcDate(order.deliveredAt),
      statusDesc: 'Delivered',
    });
  }
  return {
    orderId: order.svcOrderId,
    logisticName: order.logisticName,
    trackingNumber: order.trackNumber ?? null,
    trackingUrl: trackingUrl(order),
    trackingProvider: order.trackNumber === undefined ? null : trackingProvider(order),
    trackingStatus:
      order.deliveredAt !== undefined ? TrackingStatus.Delivered : TrackingStatus.WarehouseOutbound,
    logisticsTrackEvents: JSON.stringify(events.reverse()),
  };
}
