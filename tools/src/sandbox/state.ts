/**
 * Everything the sandbox remembers, as plain JSON so it survives a restart (see store.ts). The
 * catalogue is not here: it is seeded deterministically from code (seed.ts).
 */

import type {
  OrderStatus,
  ShopLogisticsType,
  UnshippedSubStatus,
  DisputeStatus,
  ExpectType,
  FinallyDeal,
  RefundType,
  ShopProductStatus,
  WebhookTopic,
} from 'dropflow/supplier';

export interface InterceptReason {
  code: number;
  message: string;
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  issuedAt: number;
  accessExpiresAt: number;
  refreshExpiresAt: number;
}

/** A webhook the sandbox sends: the supplier's envelope without its messageId. */
export interface WebhookMessage {
  type: string;
  messageType: string;
  params: Record<string, unknown>;
}

export interface WebhookSubscription {
  callbackUrl: string;
  enabled: boolean;
  /** Why the auto-close rule closed the topic. */
  closedReason?: string;
  /**
   * Why pushes of this topic are paused (POST /__sandbox/webhooks/pause): nothing is pushed until
   * the topic is set to ENABLE again, as the vendor does once a receiver fails half the time.
   */
  pausedReason?: string;
  /** Delivery outcomes per hour (key: epoch hour). */
  hourly: Record<string, { ok: number; failed: number }>;
}

/** Behaviour that can differ per account (POST /__sandbox/settings). */
export interface SandboxSettings {
  /** Order queries show each order as it was this many milliseconds ago; 0 = as it is now. */
  batchLagMs: number;
  /** Order queries show each order as it was at this moment (epoch ms), whatever the lag. */
  batchViewAt?: number;
  /** How long a payId of saveGenerateParentOrder can be paid (payExpireTime). */
  payWindowSeconds: number;
  /** Every request but the token calls also spends the account's general limit. */
  oneBudget: boolean;
  /** getAccessToken is answered at most once per this many seconds (0 = no limit). */
  tokenIntervalSeconds: number;
  /** The account's general limit: requests per second (the tier: 1, 2, 4 or 6). */
  ratePerSecond: number;
  /** getDisputeList shows a new dispute only this many milliseconds after it opened; 0 = at once. */
  disputeLagMs: number;
}

export interface SandboxAccount {
  openId: string;
  apiKey: string;
  tokens?: IssuedTokens;
  balance: { amount: number; noWithdrawalAmount: number; freezeAmount: number };
  webhooks: Partial<Record<WebhookTopic, WebhookSubscription>>;
  subscribeAll: boolean;
  subscriptions: Record<string, { createAt: string; status: boolean; reason?: string }>;
  /** Product subscription cap of the account's tier (lv1 100 … lv5 10000). */
  subscriptionCap: number;
  myProducts: string[];
  /** This account's own settings; the others follow the sandbox's defaults. */
  settings?: Partial<SandboxSettings>;
  /** A supplier that pushes nothing at all: webhook/set is taken, no push is ever sent. */
  webhooksMuted?: boolean;
}

export interface OrderLine {
  vid: string;
  quantity: number;
  sellPrice: number;
  lineItemId: string;
  storeLineItemId?: string;
  /** Store flow: the store-side ids the caller sent. */
  storeProductId?: string;
  storeVariantId?: string;
}

/** A status the order left, and when: what a lagging query still shows until then. */
export interface StatusChange {
  status: OrderStatus;
  subStatus?: UnshippedSubStatus;
  until: number;
}

export interface SandboxOrder {
  svcOrderId: string;
  svcOrderCode: string;
  openId: string;
  orderNumber: string;
  /** The create request as received (address fields, logistics, flow choices). */
  request: Record<string, unknown>;
  status: OrderStatus;
  subStatus?: UnshippedSubStatus;
  /** Store flow: filed invalid until its store products are connected. */
  awaitingConnection?: boolean;
  lines: OrderLine[];
  logisticName: string;
  shopLogisticsType: ShopLogisticsType;
  storageId?: string;
  fromCountryCode: string;
  isSandbox: boolean;
  productAmount: number;
  postageAmount: number;
  orderAmount: number;
  interceptReasons: InterceptReason[];
  logisticsMiss: boolean;
  shipmentOrderId?: string;
  trackNumber?: string;
  trackingProvider?: string;
  waybill?: { carrier: string; trackNumber: string; filename: string; uploadedAt: number };
  proofOfDelivery: string[];
  createdAt: number;
  paidAt?: number;
  processingAt?: number;
  shippedAt?: number;
  deliveredAt?: number;
  disputeId?: string;
  /** The latest statuses the order left, oldest first (absent in state files of older versions). */
  statusHistory?: StatusChange[];
  /** Split (split.ts): the orders it became; it is no longer listed. */
  splitInto?: string[];
  /** The order this one was split from. */
  splitFrom?: string;
  /** A split asked for before the payment: the parts (line indexes), applied when it is paid. */
  pendingSplit?: number[][];
}

export interface SandboxShipment {
  id: string;
  openId: string;
  orderIds: string[];
  payId?: string;
  payExpiresAt?: number;
  /** payIds replaced after they expired: paying with one is refused as expired. */
  expiredPayIds?: string[];
  amount: number;
  paid: boolean;
}

export interface SandboxDispute {
  id: string;
  openId: string;
  /** The caller's id; none for a dispute opened in the supplier's console. */
  businessDisputeId?: string;
  /** Opened by the supplier's staff (POST /__sandbox/disputes), not through the API. */
  byConsole?: boolean;
  orderId: string;
  orderNumber: string;
  disputeReasonId: number;
  expectType: ExpectType;
  refundType: RefundType;
  messageText: string;
  products: { lineItemId?: string; quantity: number; price: number }[];
  status: DisputeStatus;
  finallyDeal?: FinallyDeal;
  money?: number;
  resendOrderCode?: string;
  createdAt: number;
  resolvesAt: number;
}

export interface StoreVariant {
  id: string;
  productId: string;
  title: string;
  sku: string;
  image: string;
  shopPrice?: number;
  shopPriceCurrency?: string;
  weight?: number;
  weightUnit?: string;
  createdAt: number;
}

export interface StoreProduct {
  shopId: string;
  id: string;
  openId: string;
  title: string;
  image: string;
  description?: string;
  priceMin?: number;
  priceMax?: number;
  priceCurrency?: string;
  status: ShopProductStatus;
  variants: StoreVariant[];
  createdAt: number;
}

export interface Connection {
  openId: string;
  shopId: string;
  platformProductId: string;
  platformVariantId: string;
  svcProductId: string;
  svcVariantId: string;
  defaultArea: number;
  logistics: string;
  sourceCountryCode?: string;
  sourceCountry?: string;
  targetCountryCode?: string;
  targetCountry?: string;
}

export interface WebhookDelivery {
  messageId: string;
  openId: string;
  topic: WebhookTopic;
  body: string;
  attempts: number;
  nextAttemptAt: number;
}

export interface SandboxStats {
  /** Every request by endpoint path, those refused for the rate limit included. */
  calls: Record<string, number>;
  rateLimited: number;
  /** The requests refused for the rate limit, by endpoint path (absent in older state files). */
  rateLimitedCalls?: Record<string, number>;
  ordersCreated: number;
  duplicateCreatesRefused: number;
  payments: number;
  repeatedPaymentsRefused: number;
  expiredPaymentsRefused: number;
  webhooksDelivered: number;
  webhooksFailed: number;
  faultsInjected: number;
  /** getAccessToken calls answered with tokens (refused ones are in `calls` and `rateLimited`). */
  tokensObtained: number;
  /** refreshAccessToken calls answered with tokens. */
  tokensRefreshed: number;
  /**
   * Per account: the most requests it sent in any 1 s (sliding window on the sandbox's clock,
   * refused ones included, token calls not: requestRate.ts), and when (epoch ms). Absent in older
   * state files; 0 in the global counters.
   */
  peakRequestsPerSecond?: number;
  peakAt?: number;
  /** The requests of that busiest second: ms after its first, and the endpoint. */
  peakWindow?: { ms: number; path: string }[];
  /** When these counters started: the account's creation, or its last reset (epoch ms). */
  since?: number;
}

export interface SandboxState {
  version: 1;
  /** Source of every id the sandbox hands out. */
  seq: number;
  accounts: Record<string, SandboxAccount>;
  orders: Record<string, SandboxOrder>;
  shipments: Record<string, SandboxShipment>;
  disputes: Record<string, SandboxDispute>;
  storeProducts: Record<string, StoreProduct>;
  connections: Connection[];
  outbox: WebhookDelivery[];
  stats: SandboxStats;
  statsByAccount: Record<string, SandboxStats>;
  /** Milliseconds between automatic lifecycle steps of a paid order; 0 = only by /advance. */
  lifecycleStepMs: number;
  /**
   * USD added to the postage of a logistics line, by account (openId), then lower-case line name
   * (POST /__sandbox/postage); absent in state files of older versions.
   */
  postageSurcharges?: Record<string, Record<string, number>>;
}

/** The requests of one endpoint the supplier took: one refused for the rate limit did nothing. */
export function takenCalls(stats: SandboxStats, path: string): number {
  return (stats.calls[path] ?? 0) - (stats.rateLimitedCalls?.[path] ?? 0);
}

export function emptyStats(): SandboxStats {
  return {
    calls: {},
    rateLimited: 0,
    rateLimitedCalls: {},
    ordersCreated: 0,
    duplicateCreatesRefused: 0,
    payments: 0,
    repeatedPaymentsRefused: 0,
    expiredPaymentsRefused: 0,
    webhooksDelivered: 0,
    webhooksFailed: 0,
    faultsInjected: 0,
    tokensObtained: 0,
    tokensRefreshed: 0,
    peakRequestsPerSecond: 0,
  };
}

export function emptyState(lifecycleStepMs: number): SandboxState {
  return {
    version: 1,
    seq: 0,
    accounts: {},
    orders: {},
    shipments: {},
    disputes: {},
    storeProducts: {},
    connections: [],
    outbox: [],
    stats: emptyStats(),
    statsByAccount: {},
    lifecycleStepMs,
  };
}

/** Fills in what state files written by older versions lack (counters added since). */
export function upgradeState(state: SandboxState): SandboxState {
  state.stats = { ...emptyStats(), ...state.stats };
  for (const [openId, stats] of Object.entries(state.statsByAccount)) {
    state.statsByAccount[openId] = { ...emptyStats(), ...stats };
  }
  return state;
}
