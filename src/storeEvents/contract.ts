/**
 * The events dropflow sends the upstream store system (STORE_EVENTS_URL), defined once for the
 * workflows that emit them, the activity and CLI that deliver them, and the store's developers who
 * receive them. Every event is one POST whose body is a `StoreEvent` as JSON, signed as the
 * Standard Webhooks specification says (`webhook-id`, `webhook-timestamp`, `webhook-signature`).
 *
 * No more personal data than the store already has, never a token or key: ids, amounts, stages,
 * tracking, reasons. Sandbox-safe: types and constants only.
 */
import type { DisputeStage } from '../order/contract.js';

export const StoreEventType = {
  /** The supplier created the order: its id and amounts. */
  OrderCreated: 'order.created',
  /** The order stopped where a person or an outside event must move it on. */
  OrderNeedsAttention: 'order.needs_attention',
  /** The supplier took the payment. */
  OrderPaid: 'order.paid',
  /** The carrier has the parcel: tracking number and link. */
  OrderShipped: 'order.shipped',
  OrderDelivered: 'order.delivered',
  /** Delivered, with the proof of delivery or why there is none. */
  OrderCompleted: 'order.completed',
  OrderCancelled: 'order.cancelled',
  /** A dispute about the order changed: its status, outcome, money, reissued order. */
  DisputeUpdated: 'dispute.updated',
} as const;
export type StoreEventType = (typeof StoreEventType)[keyof typeof StoreEventType];

export const STORE_EVENT_TYPES: readonly StoreEventType[] = Object.values(StoreEventType);

/** Amounts are in US dollars, as the supplier states them. */
export type Currency = 'USD';

export interface OrderCreatedData {
  svcOrderId: string;
  amounts: {
    orderAmount?: number;
    productAmount?: number;
    postageAmount?: number;
    currency: Currency;
  };
}

export interface OrderNeedsAttentionData {
  /** Why the order stopped, in words. */
  reason: string;
  /** What moves it on (an operator action, a top-up, a webhook), in words. */
  action: string;
  /** The step that stopped, when a supplier call did. */
  step?: string;
  /** The supplier's code, message and requestId of the failure, when there is one. */
  code?: number;
  message?: string;
  requestId?: string;
  /** The supplier's interception reasons (INTERCEPTED). */
  reasons?: { code?: number; message: string }[];
}

export interface OrderPaidData {
  amount?: number;
  currency: Currency;
  paidAt: string;
  payId?: string;
}

export interface OrderShippedData {
  trackNumber?: string;
  trackingUrl?: string;
  /** The supplier's logistics line. */
  logisticName?: string;
  /** The carrier: the waybill's (platform logistics), else the logistics line's name. */
  carrier?: string;
}

export interface OrderDeliveredData {
  deliveredAt: string;
  trackNumber?: string;
}

export interface OrderCompletedData {
  /** Proof-of-delivery file URLs; empty when there are none. */
  proofOfDelivery: string[];
  /** Why there is no proof of delivery, when there is none. */
  noProofReason?: string;
}

export interface OrderCancelledData {
  reason: string;
  /** Who cancelled: an operator (or the store), or the supplier. */
  by: 'operator' | 'supplier';
}

export interface DisputeUpdatedData {
  businessDisputeId: string;
  disputeId?: string;
  status: DisputeStage;
  outcome?: 'refund' | 'reissue' | 'reject';
  /** Refunded amount. */
  money?: number;
  currency?: Currency;
  /** The reissued order, for a reissue. */
  resendOrderCode?: string;
  /** Why the dispute stopped or was cancelled, when it did. */
  reason?: string;
}

export interface StoreEventDataMap {
  'order.created': OrderCreatedData;
  'order.needs_attention': OrderNeedsAttentionData;
  'order.paid': OrderPaidData;
  'order.shipped': OrderShippedData;
  'order.delivered': OrderDeliveredData;
  'order.completed': OrderCompletedData;
  'order.cancelled': OrderCancelledData;
  'dispute.updated': DisputeUpdatedData;
}

/** One event of one type. `id` is the `webhook-id`: the same on every delivery of the event. */
export interface StoreEventOf<T extends StoreEventType> {
  id: string;
  type: T;
  /** When it happened (ISO 8601), not when it was delivered. */
  occurredAt: string;
  orderNumber: string;
  /** The order's stage when it happened (for `dispute.updated`, the dispute's). */
  stage: string;
  data: StoreEventDataMap[T];
}

/** Any event: a union discriminated by `type`. */
export type StoreEvent = { [T in StoreEventType]: StoreEventOf<T> }[StoreEventType];

/** Where an order's (or dispute's) events stand, in its status. */
export interface StoreEventsView {
  /**
   * `on`: events are delivered; `off`: the workers have no STORE_EVENTS_URL (decided by the first
   * event), nothing is sent for this order.
   */
  mode: 'unknown' | 'on' | 'off';
  delivered: number;
  /** Events emitted and not delivered yet, oldest first (the first one is being delivered). */
  waiting: { id: string; type: StoreEventType; occurredAt: string }[];
  /** Failed attempts at the oldest waiting event. */
  attempts: number;
  /** The last failed attempt: what the store answered, or why it was not reached. */
  lastFailure?: { message: string; status?: number; at: string };
  /** When the oldest waiting event is tried again, after a failed attempt. */
  nextAttemptAt?: string;
}
