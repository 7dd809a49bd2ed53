/**
 * The supplier's names frozen runs act on, copied from supplier/failureDetails.ts,
 * supplier/errors.ts and supplier/api/constants.ts as they were on 2026-11-28. Types stay
 * live.
 */
import type {
  DisputeStatus as DisputeStatusName,
  ExpectType as ExpectTypeName,
  FinallyDeal as FinallyDealName,
  OrderStatus as OrderStatusName,
  RefundType as RefundTypeName,
} from '../../supplier/api/constants.js';
import type { FailureType as FailureTypeName } from '../../supplier/failureDetails.js';

/** The types of the ApplicationFailures supplier activities raise. */
export const FailureType = {
  Retryable: 'SupplierRetryable',
  Ambiguous: 'SupplierAmbiguous',
  Business: 'SupplierBusiness',
  Fatal: 'SupplierFatal',
  InvalidRequest: 'SupplierInvalidRequest',
  ConfirmedWithoutShipment: 'SupplierConfirmedWithoutShipment',
} as const satisfies Record<string, FailureTypeName>;
export type FailureType = FailureTypeName;

export function failureText(e: { step: string; message: string }): string {
  return e.message.startsWith(`${e.step}: `) ? e.message : `${e.step}: ${e.message}`;
}

/** The supplier's codes frozen runs handle by name. */
export const SupplierCode = {
  SystemBusy: 1600000,
  TooManyRequests: 1600200,
  QuotaUsedUp: 1600201,
  DuplicateOrder: 1603003,
  PayFailed: 1603101,
  InsufficientBalance: 1604000,
  CarrierNotSupported: 806,
} as const;

export const OrderStatus = {
  Created: 'CREATED',
  InCart: 'IN_CART',
  Unpaid: 'UNPAID',
  Unshipped: 'UNSHIPPED',
  Shipped: 'SHIPPED',
  Delivered: 'DELIVERED',
  Cancelled: 'CANCELLED',
  Closed: 'CLOSED',
} as const satisfies Record<string, OrderStatusName>;
export type OrderStatus = OrderStatusName;

/** The way to delivery; CANCELLED and CLOSED are off it. */
const ORDER_PROGRESS: readonly OrderStatus[] = [
  OrderStatus.Created,
  OrderStatus.InCart,
  OrderStatus.Unpaid,
  OrderStatus.Unshipped,
  OrderStatus.Shipped,
  OrderStatus.Delivered,
];

/** Whether `status` is at or past `target` on the way to delivery. */
export function reachedStatus(status: string | undefined, target: OrderStatus): boolean {
  if (status === undefined) return false;
  const at = ORDER_PROGRESS.indexOf(status as OrderStatus);
  return at >= 0 && at >= ORDER_PROGRESS.indexOf(target);
}

export const DisputeStatus = {
  Processing: 'Processing',
  Completed: 'Completed',
  Cancelled: 'Cancelled',
} as const satisfies Record<string, DisputeStatusName>;
export type DisputeStatus = DisputeStatusName;

export const FinallyDeal = { Refund: 1, Reissue: 2, Reject: 3 } as const satisfies Record<
  string,
  FinallyDealName
>;
export type FinallyDeal = FinallyDealName;

export const ExpectType = { Refund: 1, Reissue: 2 } as const satisfies Record<
  string,
  ExpectTypeName
>;
export type ExpectType = ExpectTypeName;

export const RefundType = { Balance: 1, Platform: 2 } as const satisfies Record<
  string,
  RefundTypeName
>;
export type RefundType = RefundTypeName;
