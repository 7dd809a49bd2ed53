/**
 * The names frozen runs answer and send by, copied from the areas' contracts as they were when the
 * sets froze (order/contract.ts, checkout/contract.ts, dispute/contract.ts, storeEvents/contract.ts,
 * order/orderInput.ts, terms/checkoutSettings.ts, temporal/searchAttributes.ts,
 * accounts/contract.ts): a later change there does not reach a recorded history. Types stay live.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  ActionResult,
  ApprovePaymentInput,
  CancelInput,
  ChangeLogisticsInput,
  OrderStatus,
  ResumeInput,
  Stage as StageName,
  SupplierNews,
  WaybillInput,
} from '../../order/contract.js';
import type {
  CheckoutOutcome,
  CheckoutView,
  FundsNews,
  ReadyOrder,
} from '../../checkout/contract.js';
import type { DisputeStatus } from '../../dispute/contract.js';
import type { FulfillmentChoices } from '../../order/orderInput.js';
import type { CheckoutSettings } from '../../terms/checkoutSettings.js';

// ---- accounts --------------------------------------------------------------------------------

export const DEFAULT_ACCOUNT = 'default';
export const SUPPLIER_TIER_MEMO = 'supplierTier';
export const UNKNOWN_ACCOUNT_FAILURE = 'UnknownAccount';

// ---- the order -------------------------------------------------------------------------------

export function orderWorkflowId(orderNumber: string, account: string = DEFAULT_ACCOUNT): string {
  return account === DEFAULT_ACCOUNT ? `order:${orderNumber}` : `order:${account}:${orderNumber}`;
}

export const Stage = {
  RECEIVED: 'RECEIVED',
  ON_HOLD: 'ON_HOLD',
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
  INTERCEPTED: 'INTERCEPTED',
  AWAITING_FUNDS: 'AWAITING_FUNDS',
  AWAITING_APPROVAL: 'AWAITING_APPROVAL',
  AWAITING_CONNECTION: 'AWAITING_CONNECTION',
  NEEDS_ATTENTION: 'NEEDS_ATTENTION',
  CANCELLED: 'CANCELLED',
} as const satisfies Record<string, StageName>;
export type Stage = StageName;

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

export const FINAL_STAGES: readonly Stage[] = [Stage.COMPLETED, Stage.CANCELLED];

export const supplierEventSignal = defineSignal<[SupplierNews]>('supplierEvent');
export const supplierStatusSignal = defineSignal<[SupplierNews]>('supplierStatus');
export const resumeUpdate = defineUpdate<ActionResult, [ResumeInput]>('resume');
export const changeLogisticsUpdate = defineUpdate<ActionResult, [ChangeLogisticsInput]>(
  'changeLogistics',
);
export const approvePaymentUpdate = defineUpdate<ActionResult, [ApprovePaymentInput]>(
  'approvePayment',
);
export const provideWaybillUpdate = defineUpdate<ActionResult, [WaybillInput]>('provideWaybill');
export const cancelUpdate = defineUpdate<ActionResult, [CancelInput]>('cancel');
export const statusQuery = defineQuery<OrderStatus>('status');

export function usesPlatformLogistics(f: FulfillmentChoices): boolean {
  return f.flow === 'A' || (f.flow === 'C' && f.then === 'A');
}

/** `A`, `B`, `C+A` or `C+B`: the FulfillmentFlow search attribute. */
export function flowLabel(f: FulfillmentChoices): string {
  return f.flow === 'C' ? `C+${f.then}` : f.flow;
}

export const FulfillmentStage = defineSearchAttributeKey(
  'FulfillmentStage',
  SearchAttributeType.KEYWORD,
);
export const OrderNumber = defineSearchAttributeKey('OrderNumber', SearchAttributeType.KEYWORD);
export const SvcOrderId = defineSearchAttributeKey('SvcOrderId', SearchAttributeType.KEYWORD);
export const FulfillmentFlow = defineSearchAttributeKey(
  'FulfillmentFlow',
  SearchAttributeType.KEYWORD,
);
export const NeedsAttention = defineSearchAttributeKey('NeedsAttention', SearchAttributeType.BOOL);
export const StoreEventsBehind = defineSearchAttributeKey(
  'StoreEventsBehind',
  SearchAttributeType.BOOL,
);
export const SupplierAccount = defineSearchAttributeKey(
  'SupplierAccount',
  SearchAttributeType.KEYWORD,
);

// ---- checkout --------------------------------------------------------------------------------

export const checkoutReadySignal = defineSignal<[ReadyOrder]>('checkoutReady');
export const checkoutWithdrawSignal = defineSignal<[{ workflowId: string }]>('checkoutWithdraw');
export const checkoutSettingsSignal = defineSignal<[CheckoutSettings]>('checkoutSettings');
export const checkoutFundsSignal = defineSignal<[FundsNews]>('checkoutFunds');
export const checkoutOutcomeSignal = defineSignal<[CheckoutOutcome]>('checkoutOutcome');
export const checkoutStatusQuery = defineQuery<CheckoutView>('checkoutStatus');

export const DEFAULT_CHECKOUT_SETTINGS: CheckoutSettings = {
  batching: true,
  quietMs: 2_000,
  maxWaitMs: 30_000,
  maxBatch: 50,
  fundsCheckMs: 30 * 60_000,
  signalsPerRun: 4_000,
  historyPerRun: 10_000,
  outcomesInFlight: 200,
};

// ---- disputes --------------------------------------------------------------------------------

export const disputeStatusQuery = defineQuery<DisputeStatus>('status');
