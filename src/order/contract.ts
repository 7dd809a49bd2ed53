/**
 * The order workflow's public surface (docs/architecture.md §4 to §11), defined once for workflow
 * code, the worker, the gateway, the CLI and upstream clients: workflow names and ids, stages,
 * signals, updates and the status query (the dispute's are in dispute/contract.ts). Sandbox-safe:
 * imports only @temporalio/workflow's definers and other contracts' types.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { DEFAULT_ACCOUNT } from '../accounts/contract.js';
import type { OrderChanges } from './orderInput.js';
import type { DisputeStage, ParcelLine, StoreEventsView } from '../storeEvents/contract.js';
import type { FailureInfo } from '../supplier/failureDetails.js';
import type { DeadlineView } from '../terms/sla.js';
import type { MarginCheck, MarginMoment } from '../terms/margin.js';

export const ORDER_WORKFLOW = 'fulfillOrder';

/** What a dispute of the order tells it (dispute/contract.ts), for its status. */
export interface DisputeSummaryNews {
  businessDisputeId: string;
  disputeId?: string;
  /** The parcel of a split order whose lines it concerns (its supplier order code). */
  parcel?: string;
  stage: DisputeStage;
  outcome?: DisputeOutcome;
}

export interface DisputeOutcome {
  result: 'refund' | 'reissue' | 'reject';
  /** Refunded amount, USD. */
  money?: number;
  /** The reissued order, for a reissue. */
  resendOrderCode?: string;
}

/**
 * `order:<orderNumber>`: the caller's order name is the idempotency key of an order, within its
 * supplier account. The default account keeps the ids it had; another account's orders are
 * `order:<account>:<orderNumber>` (an account id has no `:`), so one orderNumber may be an order
 * in each account.
 */
export function orderWorkflowId(orderNumber: string, account: string = DEFAULT_ACCOUNT): string {
  return account === DEFAULT_ACCOUNT ? `order:${orderNumber}` : `order:${account}:${orderNumber}`;
}

/** No order workflow for this orderNumber. The gateway answers 404. */
export class OrderNotFoundError extends Error {
  override readonly name = 'OrderNotFoundError';
  constructor(
    readonly orderNumber: string,
    account: string = DEFAULT_ACCOUNT,
  ) {
    super(`no order ${orderNumber} (workflow ${orderWorkflowId(orderNumber, account)} not found)`);
  }
}

export const Stage = {
  RECEIVED: 'RECEIVED',
  /** A store order in its store's hold window (`holdFor`): nothing is sent to the supplier yet. */
  ON_HOLD: 'ON_HOLD',
  /** A store order line whose SKU maps to no supplier variant, or to several (`dropflow store map`). */
  AWAITING_MAPPING: 'AWAITING_MAPPING',
  CREATED: 'CREATED',
  IN_CART: 'IN_CART',
  CONFIRMED: 'CONFIRMED',
  AWAITING_PAYMENT: 'AWAITING_PAYMENT',
  PAID: 'PAID',
  AWAITING_WAYBILL: 'AWAITING_WAYBILL',
  AWAITING_SHIPMENT: 'AWAITING_SHIPMENT',
  SHIPPED: 'SHIPPED',
  DELIVERED: 'DELIVERED',
  COMPLETED: 'COMPLETED',
  /** Stopped by the supplier's interception; reasons in the status. */
  INTERCEPTED: 'INTERCEPTED',
  /** The balance does not cover the payment (1604000). */
  AWAITING_FUNDS: 'AWAITING_FUNDS',
  /** The payment policy asks a person to approve the payment (approvePayment). */
  AWAITING_APPROVAL: 'AWAITING_APPROVAL',
  /** Store flow: a store product is not connected to a catalogue product yet. */
  AWAITING_CONNECTION: 'AWAITING_CONNECTION',
  /** A non-retryable failure; the supplier's code, message and requestId in the status. */
  NEEDS_ATTENTION: 'NEEDS_ATTENTION',
  CANCELLED: 'CANCELLED',
} as const;
export type Stage = (typeof Stage)[keyof typeof Stage];

/** Stages that wait for a person or an outside event (NeedsAttention is true in them). */
export const WAITING_STAGES: readonly Stage[] = [
  Stage.INTERCEPTED,
  Stage.AWAITING_FUNDS,
  Stage.AWAITING_APPROVAL,
  Stage.AWAITING_CONNECTION,
  Stage.AWAITING_WAYBILL,
  Stage.AWAITING_MAPPING,
  Stage.NEEDS_ATTENTION,
];

/** Stages after payment in which the tracking sweeper asks the supplier about the order. */
export const TRACKED_STAGES: readonly Stage[] = [
  Stage.PAID,
  Stage.AWAITING_WAYBILL,
  Stage.AWAITING_SHIPMENT,
  Stage.SHIPPED,
  Stage.DELIVERED,
];

export const FINAL_STAGES: readonly Stage[] = [Stage.COMPLETED, Stage.CANCELLED];

// ---- supplier news ---------------------------------------------------------------------------

export interface TrackingEvent {
  status?: string;
  activity?: string;
  location?: string;
  eventTime?: string;
}

/**
 * What the supplier says about an order, from a webhook (`supplierEvent`) or from the tracking
 * sweeper's batch queries (`supplierStatus`). Both are idempotent by `messageId`.
 */
export interface SupplierNews {
  /** The webhook's messageId, or the sweeper's id for this observation. */
  messageId: string;
  /**
   * `order`, `logistics`, `makeup`, `connected` (ORDER_CONNNECTED), `status` or `stale`
   * (sweeper), `dispute` (from the order's disputeOrder workflow), or `split` (ORDERSPLIT).
   */
  kind: 'order' | 'logistics' | 'makeup' | 'connected' | 'status' | 'stale' | 'dispute' | 'split';
  svcOrderId?: string;
  /** The supplier's order status: CREATED … UNSHIPPED, SHIPPED, DELIVERED, CANCELLED. */
  orderStatus?: string;
  subStatus?: string;
  logisticName?: string;
  trackNumber?: string;
  trackingUrl?: string;
  trackingEvents?: TrackingEvent[];
  /** Proof-of-delivery file URLs, once the supplier has them. */
  proofOfDelivery?: string[];
  /** Makeup (top-up) status: CREATED, CANCELED, PAID. */
  makeupStatus?: string;
  /** When the supplier observed it (ISO 8601), if known. */
  at?: string;
  /** Where a dispute about the order stands. */
  dispute?: DisputeSummaryNews;
  /** The sweeper's word that the supplier has gone quiet about the order. */
  stale?: StaleNews;
  /** The supplier's word (ORDERSPLIT) that it split a parcel: believed only once looked up. */
  split?: SplitNews;
}

/** An ORDERSPLIT as the order hears it: which parcel, into which codes (a claim, not a fact). */
export interface SplitNews {
  parentCode: string;
  codes: string[];
}

/** Where one parcel of an order stands. */
export const ParcelStage = {
  AWAITING_SHIPMENT: 'AWAITING_SHIPMENT',
  SHIPPED: 'SHIPPED',
  DELIVERED: 'DELIVERED',
  CANCELLED: 'CANCELLED',
  /** The supplier split it into other parcels, which ship instead. */
  SPLIT: 'SPLIT',
} as const;
export type ParcelStage = (typeof ParcelStage)[keyof typeof ParcelStage];

/** One parcel of an order, in its status. */
export interface ParcelView {
  /** The supplier's order code it ships under. */
  code: string;
  lines: ParcelLine[];
  stage: ParcelStage;
  /** The parcel it was split from. */
  splitFrom?: string;
  logisticName?: string;
  trackNumber?: string;
  trackingUrl?: string;
  proofOfDelivery?: string[];
  /** The deadlines this parcel missed (`delivered`, …): the order is late by them. */
  late?: string[];
  /** The stage of the latest dispute opened on this parcel's lines. */
  dispute?: string;
  timeline: { stage: ParcelStage; at: string; note?: string }[];
}

/** Why the tracking sweeper flags an order it follows. */
export const StaleReason = {
  /** The supplier no longer lists the order, asked by every id the order is known by. */
  Missing: 'missing',
  /** The supplier's status has not changed for longer than the configured limit. */
  Unmoved: 'unmoved',
} as const;
export type StaleReason = (typeof StaleReason)[keyof typeof StaleReason];

export interface StaleNews {
  reason: StaleReason;
  /** Since when (ISO 8601): the first sweep that missed the order, or the status's own date. */
  since: string;
  /** For the operator, in words; no personal data. */
  note: string;
}

export const supplierEventSignal = defineSignal<[SupplierNews]>('supplierEvent');
export const supplierStatusSignal = defineSignal<[SupplierNews]>('supplierStatus');

// ---- operator actions ------------------------------------------------------------------------

export interface ActionResult {
  /** False when the action was heard but the supplier refused it (the message says why). */
  accepted: boolean;
  /** The order's stage (or the dispute's, for a disputeOrder workflow) after the action. */
  stage: Stage | DisputeStage;
  message: string;
}

export interface ResumeInput {
  /** Who asked, for the timeline. */
  by?: string;
  note?: string;
}
export interface ChangeLogisticsInput {
  logisticName: string;
  by?: string;
}
export interface ApprovePaymentInput {
  by?: string;
  note?: string;
}
export interface WaybillInput {
  /** A carrier the storage accepts (warehouse detail's logisticsBrandList). */
  carrier: string;
  trackNumber: string;
  filename: string;
  /** The label file, base64. */
  contentBase64: string;
  contentType?: string;
}
export interface CancelInput {
  reason: string;
  by?: string;
}
/**
 * Changes to the order's createOrderV3 body (AMENDABLE_FIELDS in orderInput.ts; null removes an
 * optional field), taken while the supplier does not have the order yet.
 */
export interface AmendInput {
  order: OrderChanges;
  /** Who asked, for the timeline. */
  by?: string;
}

export const resumeUpdate = defineUpdate<ActionResult, [ResumeInput]>('resume');
export const changeLogisticsUpdate = defineUpdate<ActionResult, [ChangeLogisticsInput]>(
  'changeLogistics',
);
export const approvePaymentUpdate = defineUpdate<ActionResult, [ApprovePaymentInput]>(
  'approvePayment',
);
export const provideWaybillUpdate = defineUpdate<ActionResult, [WaybillInput]>('provideWaybill');
export const cancelUpdate = defineUpdate<ActionResult, [CancelInput]>('cancel');
export const amendUpdate = defineUpdate<ActionResult, [AmendInput]>('amend');
/**
 * The failure type of an amend refused for its changes: the first detail is the `FieldIssue[]`
 * (field and rule) of the order they would make.
 */
export const AMEND_INVALID = 'OrderAmendInvalid';

// ---- status ----------------------------------------------------------------------------------

export interface TimelineEntry {
  stage: Stage;
  at: string;
  note?: string;
}

export interface OrderStatus {
  orderNumber: string;
  /** The store order it was made from (a store connection's), as the merchant knows it. */
  store?: { connection: string; platform: string; orderId: string; orderName: string };
  flow: string;
  stage: Stage;
  svcOrderId?: string;
  /**
   * Whether the supplier has (or had) filed the order: created, intercepted at creation, or held
   * unconnected (flow C). False again once dropflow deleted it there to amend it. Missing in the
   * results of orders that ended before amend existed.
   */
  atSupplier?: boolean;
  shipmentOrderId?: string;
  payId?: string;
  logisticName?: string;
  amounts?: { orderAmount?: number; productAmount?: number; postageAmount?: number };
  /** The last check of the order's margin rule (fulfillment.margin), once one was made. */
  margin?: MarginView;
  trackNumber?: string;
  trackingUrl?: string;
  trackingEvents?: TrackingEvent[];
  proofOfDelivery?: string[];
  /** Why the supplier intercepted the order, while INTERCEPTED. */
  interception?: { step: string; reasons: { code?: number; message: string }[] };
  /** The blocking failure, while NEEDS_ATTENTION (or the last one that was resolved). */
  error?: FailureInfo;
  /**
   * A call that may have acted and whose outcome is not known yet (its answer was lost): nothing
   * is sent again, and nothing it would forbid is allowed, until the supplier shows the truth.
   */
  outcomeUnknown?: { step: string; since: string };
  /** What the order waits for, in words. */
  waitingFor?: string;
  /** The latest dispute about the order, when one was opened. */
  dispute?: DisputeSummaryNews;
  /**
   * The order's parcels, once the supplier split it: every parcel, the split ones included. An
   * order never split is one parcel, shown by the fields above (svcOrderId, tracking).
   */
  parcels?: ParcelView[];
  /** Where the order's events to the store stand, once it emitted one. */
  storeEvents?: StoreEventsView;
  /**
   * The order's deadlines and whether each was met (docs/delivery-promises.md); absent on orders
   * started before deadlines existed.
   */
  deadlines?: DeadlineView[];
  timeline: TimelineEntry[];
}

/** A margin check as the status shows it. */
export interface MarginView extends MarginCheck {
  at: MarginMoment;
  /** A logistics change that kept the rule: from which line to which, and the postage saved. */
  logistics?: { from: string; to: string; savedUsd: number };
  /** The landed cost a person approved (approvePayment while the rule failed). */
  approvedCost?: number;
}

export const statusQuery = defineQuery<OrderStatus>('status');
