/**
 * The events dropflow sends the upstream store system (STORE_EVENTS_URL), defined once for the
 * workflows that emit them, the activity and CLI that deliver them, and the store's developers who
 * receive them. Every event is one POST whose body is a `StoreEvent` as JSON, signed as the
 * Standard Webhooks specification says (`webhook-id`, `webhook-timestamp`, `webhook-signature`).
 *
 * No more personal data than the store already has, never a token or key: ids, amounts, stages,
 * tracking, reasons. How the workers deliver them and the signing secret's format are in
 * src/terms/storeEventsSettings.ts. Sandbox-safe: no Node API, no imports.
 */

/**
 * A dispute's stage: its `status` query's (dispute/contract.ts) and `dispute.updated`'s. Defined
 * here, where the events the store receives are, so that the dispute's contract can build on them.
 */
export type DisputeStage = 'OPENING' | 'OPEN' | 'RESOLVED' | 'CANCELLED' | 'NEEDS_ATTENTION';

export const StoreEventType = {
  /** The supplier created the order: its id and amounts. */
  OrderCreated: 'order.created',
  /** The order stopped where a person or an outside event must move it on. */
  OrderNeedsAttention: 'order.needs_attention',
  /** The supplier took the payment. */
  OrderPaid: 'order.paid',
  /** The carrier has a parcel: which one, its lines, tracking number and link. */
  OrderShipped: 'order.shipped',
  /** The last parcel was delivered (or cancelled): every parcel, the cancelled ones apart. */
  OrderDelivered: 'order.delivered',
  /** The supplier split a parcel into several, each shipped under its own code. */
  OrderSplit: 'order.split',
  /** Delivered, with the proof of delivery or why there is none. */
  OrderCompleted: 'order.completed',
  OrderCancelled: 'order.cancelled',
  /** The order missed one of its deadlines (docs/delivery-promises.md); it goes on. */
  OrderLate: 'order.late',
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

/** One line of a parcel: the supplier's variant, how many, and the store's line when known. */
export interface ParcelLine {
  vid: string;
  quantity: number;
  /** The store's own id of the order line (its `storeLineItemId`), when the order had one. */
  storeLineId?: string;
}

/**
 * What the carrier takes as one package: an order that is never split is one parcel whose code is
 * the supplier's order id; a split order is several, each under the code the supplier gave it.
 */
export interface Parcel {
  /** The supplier's order code the parcel ships under. */
  code: string;
  lines: ParcelLine[];
  /** The supplier's logistics line. */
  logisticName?: string;
  trackNumber?: string;
  trackingUrl?: string;
  /** The carrier: the waybill's (platform logistics), else the logistics line's name. */
  trackingProvider?: string;
}

/**
 * Sent once per parcel leaving, and again when its tracking number changes. The top-level tracking
 * fields repeat the parcel's, as before parcels existed. An event recorded before parcels has no
 * `parcel`: it stands for one parcel holding all the order's lines, coded with the supplier order id.
 */
export interface OrderShippedData {
  parcel?: Parcel;
  trackNumber?: string;
  trackingUrl?: string;
  /** The supplier's logistics line. */
  logisticName?: string;
  /** The carrier: the waybill's (platform logistics), else the logistics line's name. */
  carrier?: string;
}

/** Sent once, when the last parcel is delivered or cancelled. */
export interface OrderDeliveredData {
  deliveredAt: string;
  /** The last delivered parcel's tracking number (the only one for an unsplit order). */
  trackNumber?: string;
  /** Every parcel that was delivered (absent on events recorded before parcels). */
  parcels?: Parcel[];
  /** Parcels the supplier cancelled while the rest was delivered: their lines never arrive. */
  cancelledParcels?: Parcel[];
}

/** The supplier split `parentCode` into `parcels` (confirmed by looking the new codes up). */
export interface OrderSplitData {
  parentCode: string;
  parcels: Parcel[];
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

export interface OrderLateData {
  deadline: 'paid' | 'shipped' | 'firstScan' | 'delivered';
  /** The ISO-8601 duration it allowed (`PT48H`). */
  within: string;
  /** When it was due (ISO 8601). */
  dueAt: string;
  /** How late the order was when this was noticed, in seconds (0: noticed when due). */
  lateSeconds: number;
  /** A split order: the parcels that had not met the deadline (delivered ones never are). */
  parcels?: string[];
}

export interface DisputeUpdatedData {
  businessDisputeId: string;
  disputeId?: string;
  /** A split order: the parcel whose lines are disputed (its supplier order code). */
  parcel?: string;
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
  'order.split': OrderSplitData;
  'order.completed': OrderCompletedData;
  'order.cancelled': OrderCancelledData;
  'order.late': OrderLateData;
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
  /**
   * The last failed attempt: what the store answered, or why it was not reached; for an order
   * from a connected store, `reason` names the wait (`store-refused`: the store refuses the token
   * or scope, and tracking goes on once it is mended).
   */
  lastFailure?: { message: string; status?: number; at: string; reason?: string };
  /** When the oldest waiting event is tried again, after a failed attempt. */
  nextAttemptAt?: string;
}
