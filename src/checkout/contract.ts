/**
 * What order workflows and their account's checkout coordinator tell each other. The coordinator
 * (`accountCheckout`, one per account, id `checkout:<account>`) carts, confirms, generates the
 * parent order and pays for many orders at once; each order hears its own outcome.
 * Sandbox-safe: no Node imports.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { Reason } from '../supplier/interception.js';
import type { FailureInfo } from '../supplier/failureDetails.js';
import type { CheckoutSettings } from '../terms/checkoutSettings.js';
import type { MarginTerms, SupplierAmounts } from '../terms/margin.js';

export const CHECKOUT_WORKFLOW = 'accountCheckout';

/** The least an order waits on its coordinator before asking where it holds it. */
export const MIN_ORDER_BOUND_MS = 5 * 60_000;

/**
 * How long an order waits on its coordinator before asking where it holds it: `override`
 * (CHECKOUT_ORDER_BOUND_MS), else twice the longest a batch waits to close, at least 5 minutes.
 */
export function checkoutOrderBoundMs(settings: CheckoutSettings, override?: number): number {
  return override ?? Math.max(2 * settings.maxWaitMs, MIN_ORDER_BOUND_MS);
}

/**
 * The memo key under which whoever starts an order gives it that bound, so that the order knows
 * it without asking a worker (Patch.CheckoutBoundAtStart). Absent: MIN_ORDER_BOUND_MS.
 */
export const CHECKOUT_BOUND_MEMO = 'checkoutBoundMs';

/** An order created at the supplier, approved for payment, ready for the cart. */
export interface ReadyOrder {
  workflowId: string;
  svcOrderId: string;
  /** The order's amount as created (USD), if the supplier said. */
  amount?: number;
  /** How long the supplier's view may trail its acts for this order (ms). */
  lagMs: number;
  /** When it became ready (ISO). */
  readyAt: string;
  /** Its margin rule, sale and cost at create: the batch checks it before confirming. */
  margin?: MarginTerms;
}

/** How far the batch got for an order that goes on alone. */
export interface CheckoutProgress {
  inCart?: boolean;
  shipmentOrderId?: string;
  payId?: string;
  payExpiresAt?: string;
  amount?: number;
  /** Workflow ids of the other orders confirmed into the same shipment (paid whole, together). */
  siblings?: string[];
  /** A call of the batch whose outcome is unknown: the order settles it before anything else. */
  unknownStep?: string;
  /** The supplier's amounts as the batch read them in the cart (an order its margin rule failed). */
  cartAmounts?: SupplierAmounts;
}

export type CheckoutOutcome =
  | { kind: 'paid'; batchId: string; shipmentOrderId: string; payId: string; note?: string }
  /** Not done in the batch: the order goes on by itself from `progress`. */
  | { kind: 'alone'; why: string; progress: CheckoutProgress; failure?: FailureInfo }
  /** The supplier stopped this order; it goes on alone once the cause is fixed. */
  | { kind: 'intercepted'; step: string; reasons: Reason[]; progress: CheckoutProgress }
  /** The balance does not cover it: the coordinator pays it once it does. */
  | {
      kind: 'awaitingFunds';
      why: string;
      failure?: FailureInfo;
      shipmentOrderId?: string;
      siblings?: string[];
    }
  /** The coordinator let the order go (a cancel). */
  | { kind: 'withdrawn' }
  | { kind: 'withdrawRefused'; why: string }
  /** For an order paying alone that waits for funds: the balance covers it now. */
  | { kind: 'fundsAvailable'; balance: number };

/** One order's outcome, for the activity that tells a release's orders theirs (tellActivities.ts). */
export interface OutcomeTold {
  workflowId: string;
  outcome: CheckoutOutcome;
}

/** What telling a release found: the orders no longer running (nobody left to tell). */
export interface TellAnswer {
  notFound: string[];
}

/** The tell activity's failure type: its details (`{ reached }`) name the orders it did reach. */
export const TELL_INCOMPLETE = 'TellIncomplete';

export type FundsNews =
  /** A top-up (makeup) was paid, or an operator says the balance was topped up. */
  | { kind: 'toppedUp' }
  /** An order paying alone was refused for funds: tell it when the balance covers `amount`. */
  | {
      kind: 'wait';
      workflowId: string;
      amount: number;
      since: string;
      /** The shipment it pays: siblings of one shipment wait for its amount once. */
      shipmentOrderId?: string;
    }
  /** It no longer waits (paid, cancelled). */
  | { kind: 'stopWaiting'; workflowId: string };

export const checkoutReadySignal = defineSignal<[ReadyOrder]>('checkoutReady');
/**
 * Many orders ready at once: what a worker gathered in about a second (checkout/readyBuffer.ts),
 * one signal instead of one per order. A repeat of an order already known changes nothing.
 */
export const checkoutReadyManySignal = defineSignal<[ReadyOrder[]]>('checkoutReadyMany');
export const checkoutWithdrawSignal = defineSignal<[{ workflowId: string }]>('checkoutWithdraw');
export const checkoutSettingsSignal = defineSignal<[CheckoutSettings]>('checkoutSettings');
export const checkoutFundsSignal = defineSignal<[FundsNews]>('checkoutFunds');
/** To an order: what became of it in its batch. */
export const checkoutOutcomeSignal = defineSignal<[CheckoutOutcome]>('checkoutOutcome');

export interface CheckoutView {
  settings: CheckoutSettings;
  /** Orders waiting for the next batch. */
  waiting: number;
  /** Batches being checked out now, with what each waits for. */
  batches: {
    id: string;
    orders: number;
    step: string;
    waitingFor?: string;
    /** Since when it waits for `waitingFor` (ISO); `lagging` once past the coordinator's bound. */
    waitingSince?: string;
    lagging?: boolean;
    /** The workflow ids of the orders that wait on it. */
    orderIds?: string[];
  }[];
  /** Orders wait for a batch while the most batches at once are under way. */
  batchesFull?: boolean;
  /** Orders and shipments waiting for the balance, oldest first. */
  awaitingFunds: { what: string; amount?: number; since: string }[];
  /** Last known balance (USD) and when it was read. */
  balance?: { amount: number; at: string };
  batchesDone: number;
  ordersPaid: number;
}
export const checkoutStatusQuery = defineQuery<CheckoutView>('checkoutStatus');

/** The coordinator's workflow id for the account of a queue-set prefix. */
export function checkoutWorkflowId(prefix: string): string {
  return `checkout:${prefix === '' ? 'default' : prefix}`;
}

/**
 * How whoever finds the coordinator gone starts it (signal-with-start): its id, its queue (the
 * orders queue of `prefix`) and its input.
 */
export function checkoutStartOptions(
  prefix: string,
  ordersQueue: string,
  settings: CheckoutSettings,
) {
  return { workflowId: checkoutWorkflowId(prefix), taskQueue: ordersQueue, args: [{ settings }] };
}

/** Where the coordinator holds an order; asked by an order that waited past its bound. */
export type CheckoutMembership =
  | { state: 'queued' }
  | { state: 'inBatch'; batchId: string; step: string }
  | { state: 'awaitingFunds' }
  /** Its batch released it and its outcome is on its way (a signal, soon). */
  | { state: 'released'; outcome: CheckoutOutcome['kind'] }
  | { state: 'unknown' };
export const checkoutMemberQuery = defineQuery<CheckoutMembership, [string]>('checkoutMember');
