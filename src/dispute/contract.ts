/**
 * The dispute's contract (disputeOrder, docs/architecture.md §11): its workflow type and id, its
 * input and its status query (the news it gives its order is in the order's contract). Sandbox-safe:
 * types and definers only.
 */
import { defineQuery } from '@temporalio/workflow';

import { DEFAULT_ACCOUNT } from '../accounts/contract.js';
import type { DisputeOutcome } from '../order/contract.js';
import type { DisputeStage, StoreEventsView } from '../storeEvents/contract.js';
import type { FailureInfo } from '../supplier/failureDetails.js';

export const DISPUTE_WORKFLOW = 'disputeOrder';

/** `dispute:<orderNumber>:<id>`; another account than the default: `dispute:<account>:<orderNumber>:<id>`. */
export function disputeWorkflowId(
  orderNumber: string,
  businessDisputeId: string,
  account: string = DEFAULT_ACCOUNT,
): string {
  const order = account === DEFAULT_ACCOUNT ? orderNumber : `${account}:${orderNumber}`;
  return `dispute:${order}:${businessDisputeId}`;
}

/** The input of disputeOrder; `businessDisputeId` also names the workflow (disputeWorkflowId). */
export interface DisputeInput {
  orderNumber: string;
  /** The supplier order disputed: the order's, or the parcel's of a split order. */
  svcOrderId: string;
  /** A split order: the parcel whose lines are disputed (its code, = svcOrderId). */
  parcel?: string;
  businessDisputeId: string;
  /** Lines and units to dispute; every disputable unit when empty. */
  lines: { lineItemId: string; quantity: number }[];
  expect: 'refund' | 'reissue';
  refundTo: 'balance' | 'platform';
  /** One of disputeConfirmInfo's reasons; the first offered when left out. */
  reasonId?: number;
  message: string;
  imageUrls: string[];
  /** How often to ask the supplier for the outcome (the supplier pushes no dispute events). */
  checkEverySeconds: number;
  /** Continue as new past this many history events (default 5000; tests lower it). */
  historyLimit?: number;
}

export interface DisputeStatus {
  orderNumber: string;
  businessDisputeId: string;
  /** A split order: the parcel whose lines are disputed. */
  parcel?: string;
  stage: DisputeStage;
  disputeId?: string;
  /** What was asked for, USD. */
  amount?: number;
  reason?: string;
  outcome?: DisputeOutcome;
  error?: FailureInfo;
  /** A call that may have acted whose outcome is not known yet (see OrderStatus). */
  outcomeUnknown?: { step: string; since: string };
  /** What the dispute waits for, in words. */
  waitingFor?: string;
  /** Where the dispute's events to the store stand, once it emitted one. */
  storeEvents?: StoreEventsView;
  timeline: { stage: DisputeStage; at: string; note?: string }[];
}

export const disputeStatusQuery = defineQuery<DisputeStatus>('status');
