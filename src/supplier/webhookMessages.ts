/**
 * Bodies the supplier pushes to the webhook callback (docs/supplier-api.md §12.4 to §12.8). The
 * API reference shows the envelope and the makeup and privateOrder params; the order, order split,
 * logistics, product, variant and stock params follow the vendor's own pages (§13). Parsed
 * tolerantly: ids may be numbers, unknown fields pass through, fields a message leaves out may be
 * missing or null.
 */
import { z } from 'zod';
import type { FieldIssue } from './errors.js';
import { id, optId, optList, optMoney, optNum, optStr, record } from './fields.js';
import { toFieldIssues } from './issues.js';

/**
 * A store-flow order got linked to catalogue products and now carries its real svc order id. The
 * supplier spells it with three N (sic); the value must stay exactly so.
 */
export const ORDER_CONNECTED_MESSAGE_TYPE = 'ORDER_CONNNECTED';

/** A price or time the supplier may write as a number or as text (prices can be ranges). */
const numOrText = z.union([z.number(), z.string()]).nullish();
/** A flag that may arrive as a boolean, 0/1 or text. */
const flag = z
  .union([z.boolean(), z.number(), z.string()])
  .nullish()
  .transform((v) =>
    v === undefined || v === null ? v : v === true || v === 1 || v === 'true' || v === '1',
  );

const message = <T extends string, P extends z.ZodType>(type: T, params: P) =>
  record({
    messageId: id,
    type: z.literal(type),
    messageType: z.string(),
    params,
    // Some samples add the account's openId at the top level (docs/supplier-api.md §12.4).
    openId: optId,
  });

// ---- order topic ----

const OrderItem = record({
  vid: optId,
  quantity: optNum,
  sellPrice: optMoney,
  lineItemId: optId,
  storeLineItemId: optId,
  productionOrderStatus: numOrText,
  abnormalType: optList(z.unknown()),
});

export const OrderParams = record({
  svcOrderId: optId,
  /** The caller's order name. */
  orderNumber: optStr,
  orderStatus: optStr,
  logisticName: optStr,
  trackNumber: optStr,
  trackingUrl: optStr,
  trackingProvider: optStr,
  createDate: optStr,
  updateDate: optStr,
  payDate: optStr,
  deliveryDate: optStr,
  completeDate: optStr,
  /** True for private inventory outbound orders (docs/supplier-api.md §12.5). */
  privateOutboundOrder: flag,
  orderItems: optList(OrderItem),
}).superRefine((p, ctx) => {
  if (p.svcOrderId == null && p.orderNumber == null) {
    ctx.addIssue({ code: 'custom', path: ['svcOrderId'], message: 'is required (or orderNumber)' });
  }
});
export const OrderMessage = message('ORDER', OrderParams);

export const OrderSplitParams = record({
  originalOrderId: id,
  orderSplitTime: numOrText,
  splitOrderList: optList(
    record({
      orderCode: optId,
      /** Milliseconds since the epoch. */
      createAt: numOrText,
      /** The supplier's internal status number, such as 300. */
      orderStatus: numOrText,
      productList: optList(
        record({ sku: optStr, vid: optId, quantity: optNum, productCode: optStr }),
      ),
    }),
  ),
});
export const OrderSplitMessage = message('ORDERSPLIT', OrderSplitParams);

// ---- logistics topic ----

export const TrackEvent = record({
  status: numOrText,
  activity: optStr,
  location: optStr,
  eventTime: numOrText,
  statusDesc: optStr,
});
export type TrackEvent = z.infer<typeof TrackEvent>;

/**
 * `logisticsTrackEvents` arrives as a JSON string holding the event list. Unreadable text is kept
 * in `logisticsTrackEventsRaw` (and the list is empty) rather than failing the whole message.
 */
export const LogisticParams = record({
  orderId: id,
  logisticName: optStr,
  trackingNumber: optStr,
  trackingUrl: optStr,
  /** 0 none … 12 delivered, 13 exception, 14 returned. */
  trackingStatus: optNum,
  logisticsTrackEvents: z.unknown(),
}).transform(({ logisticsTrackEvents, ...rest }) => {
  const read = readTrackEvents(logisticsTrackEvents);
  return read.ok
    ? { ...rest, logisticsTrackEvents: read.events }
    : { ...rest, logisticsTrackEvents: [] as TrackEvent[], logisticsTrackEventsRaw: read.raw };
});
export const LogisticMessage = message('LOGISTIC', LogisticParams);

type ReadEvents = { ok: true; events: TrackEvent[] } | { ok: false; raw: string };

function readTrackEvents(value: unknown): ReadEvents {
  if (value === undefined || value === null || value === '') return { ok: true, events: [] };
  let list: unknown = value;
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value);
    } catch {
      return { ok: false, raw: value };
    }
  }
  const parsed = z.array(TrackEvent).safeParse(list);
  if (parsed.success) return { ok: true, events: parsed.data };
  return { ok: false, raw: typeof value === 'string' ? value : JSON.stringify(value) };
}

// ---- product and stock topics ----

/** Only the fields named in `fields` changed; the others are null. */
export const ProductParams = record({
  pid: id,
  productName: optStr,
  productNameEn: optStr,
  productSku: optStr,
  productSellPrice: numOrText,
  /** 2 off sale, 3 on sale. */
  productStatus: optNum,
  categoryId: optId,
  categoryName: optStr,
  productImage: optStr,
  fields: optList(z.string()),
});
export const ProductMessage = message('PRODUCT', ProductParams);

export const VariantParams = record({
  vid: id,
  pid: optId,
  variantSku: optStr,
  variantSellPrice: numOrText,
  /** 0 or 1. */
  variantStatus: optNum,
  variantWeight: optNum,
  fields: optList(z.string()),
});
export const VariantMessage = message('VARIANT', VariantParams);

export const StockEntry = record({
  vid: optId,
  areaId: optNum,
  areaEn: optStr,
  countryCode: optStr,
  storageNum: optNum,
});
/** A map from vid to that variant's stock per area. */
export const StockParams = z.record(z.string(), optList(StockEntry));
export const StockMessage = message('STOCK', StockParams);

// ---- makeup and private order topics (docs/supplier-api.md §12.7) ----

export const MakeupParams = record({
  /** Makeup order number, prefix BT. */
  orderId: id,
  /** The order being topped up (prefix SD for private outbound orders). */
  relationOrderId: optId,
  payOrderId: optId,
  amount: optMoney,
  reason: optStr,
  type: optNum,
  /** 0 order makeup, 1 balance top-up, 2 repayment, 3 transfer shipping fee. */
  diffUseType: optNum,
  /** CREATED, CANCELED or PAID. */
  status: optStr,
  createDate: optStr,
  paymentDate: optStr,
});
export const MakeupMessage = message('MAKEUP', MakeupParams);

export const PrivateOrderParams = record({
  /** Prefix SY. */
  orderId: id,
  orderNumber: optStr,
  status: optStr,
  /** Always 2 (stocking order). */
  orderType: optNum,
  createDate: optStr,
  paymentDate: optStr,
  deliveryDate: optStr,
  completeDate: optStr,
});
export const PrivateOrderMessage = message('PRIVATE_ORDER', PrivateOrderParams);

// ---- any message ----

export const WebhookMessage = z.discriminatedUnion('type', [
  OrderMessage,
  OrderSplitMessage,
  LogisticMessage,
  ProductMessage,
  VariantMessage,
  StockMessage,
  MakeupMessage,
  PrivateOrderMessage,
]);
export type WebhookMessage = z.output<typeof WebhookMessage>;

const BY_TYPE = new Map<string, z.ZodType<WebhookMessage>>(
  WebhookMessage.options.map((schema) => [schema.shape.type.value, schema]),
);

export type ParsedWebhookMessage =
  { ok: true; message: WebhookMessage } | { ok: false; issues: FieldIssue[] };

/**
 * Reads a pushed body (already parsed JSON, or its raw text) into the message of its `type`. An
 * unknown type or an unreadable field is reported as field issues, never thrown.
 */
export function parseWebhookMessage(body: unknown): ParsedWebhookMessage {
  let value = body;
  if (typeof body === 'string' || body instanceof Uint8Array) {
    try {
      value = JSON.parse(typeof body === 'string' ? body : Buffer.from(body).toString('utf8'));
    } catch {
      return { ok: false, issues: [{ field: '(body)', rule: 'must be JSON' }] };
    }
  }
  const type =
    typeof value === 'object' && value !== null
      ? (value as Record<string, unknown>).type
      : undefined;
  const schema = typeof type === 'string' ? BY_TYPE.get(type) : undefined;
  if (!schema) {
    return {
      ok: false,
      issues: [{ field: 'type', rule: `must be one of ${[...BY_TYPE.keys()].join(', ')}` }],
    };
  }
  const parsed = schema.safeParse(value);
  return parsed.success
    ? { ok: true, message: parsed.data }
    : { ok: false, issues: toFieldIssues(parsed.error) };
}
