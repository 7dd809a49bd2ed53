/**
 * From a validated webhook message to the `SupplierNews` an order workflow hears:
 * the same facts under the workflow's names, nulls left out (a null would overwrite what the
 * workflow already knows), the webhook's messageId kept for deduplication.
 */
import type { SupplierNews, TrackingEvent } from '../order/contract.js';
import type { WebhookEvent } from '../inbox/contract.js';
import { WebhookChange, WebhookType } from '../supplier/api/webhooks.js';
import type { WebhookMessage } from '../supplier/webhookMessages.js';

export type OrderMessage = Extract<WebhookMessage, { type: typeof WebhookType.Order }>;
export type LogisticMessage = Extract<WebhookMessage, { type: typeof WebhookType.Logistic }>;
export type MakeupMessage = Extract<WebhookMessage, { type: typeof WebhookType.Makeup }>;
export type SplitMessage = Extract<WebhookMessage, { type: typeof WebhookType.OrderSplit }>;

/** The catalogue topics: product, variant and stock changes. */
export const CATALOGUE_TYPES: ReadonlySet<string> = new Set([
  WebhookType.Product,
  WebhookType.Variant,
  WebhookType.Stock,
]);

type Facts = Omit<SupplierNews, 'messageId' | 'kind'>;

/** Only the facts that are present (no undefined, null or empty text). */
function present<T extends object>(facts: { [K in keyof T]: T[K] | null | undefined }): T {
  return Object.fromEntries(
    Object.entries(facts).filter(([, v]) => v !== undefined && v !== null && v !== ''),
  ) as T;
}

const text = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;

/** ORDER: `connected` for ORDER_CONNNECTED (it carries the real svc order id), else `order`. */
export function orderNews(m: OrderMessage): SupplierNews {
  const p = m.params;
  return {
    messageId: m.messageId,
    kind: m.messageType === WebhookChange.OrderConnected ? 'connected' : 'order',
    ...present<Facts>({
      svcOrderId: p.svcOrderId,
      orderStatus: p.orderStatus,
      // Not among the documented fields, but the supplier (and the sandbox) send it with UNSHIPPED.
      subStatus: text(p['subStatus']),
      logisticName: p.logisticName,
      trackNumber: p.trackNumber,
      trackingUrl: p.trackingUrl,
    }),
  };
}

/** LOGISTIC: the carrier's tracking number, link and events; `orderId` is the svc order id. */
export function logisticsNews(m: LogisticMessage): SupplierNews {
  const p = m.params;
  const events = p.logisticsTrackEvents.map((e) =>
    present<TrackingEvent>({
      status: text(e.statusDesc) ?? text(e.status),
      activity: text(e.activity),
      location: text(e.location),
      eventTime: text(e.eventTime),
    }),
  );
  return {
    messageId: m.messageId,
    kind: 'logistics',
    ...present<Facts>({
      svcOrderId: p.orderId,
      logisticName: p.logisticName,
      trackNumber: p.trackingNumber,
      trackingUrl: p.trackingUrl,
      trackingEvents: events.length > 0 ? events : undefined,
    }),
  };
}

/** MAKEUP: a top-up's status (PAID means the balance grew). */
export function makeupNews(m: MakeupMessage): SupplierNews {
  const p = m.params;
  return {
    messageId: m.messageId,
    kind: 'makeup',
    ...present<Facts>({ makeupStatus: p.status }),
  };
}

/** ORDERSPLIT: which supplier order became which codes; a claim the order looks up. */
export function splitNews(m: SplitMessage): SupplierNews {
  const codes = m.params.splitOrderList.flatMap((o) => (o.orderCode == null ? [] : [o.orderCode]));
  return {
    messageId: m.messageId,
    kind: 'split',
    svcOrderId: m.params.originalOrderId,
    split: { parentCode: m.params.originalOrderId, codes },
  };
}

/** The event as the inbox and the catalogue workflow keep it. */
export function webhookEvent(m: WebhookMessage, receivedAt: Date): WebhookEvent {
  return {
    messageId: m.messageId,
    type: m.type,
    messageType: m.messageType,
    params: m.params,
    receivedAt: receivedAt.toISOString(),
  };
}
