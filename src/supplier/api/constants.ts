/**
 * The supplier's enum-like values of orders, named once (those of disputes are in disputes.ts).
 * Steps, activities, the sandbox and the gateway use these names, never the literals.
 */

/** `orderStatus` of an order, in the order an order moves through them (then the two ends). */
export const OrderStatus = {
  Created: 'CREATED',
  InCart: 'IN_CART',
  Unpaid: 'UNPAID',
  Unshipped: 'UNSHIPPED',
  Shipped: 'SHIPPED',
  Delivered: 'DELIVERED',
  Cancelled: 'CANCELLED',
  Closed: 'CLOSED',
} as const;
export type OrderStatus = (typeof OrderStatus)[keyof typeof OrderStatus];

/** The way to delivery; CANCELLED and CLOSED are off it. */
export const ORDER_PROGRESS: readonly OrderStatus[] = [
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

/** Whether the supplier has ended the order without delivering it. */
export function endedStatus(status: string | undefined): boolean {
  return status === OrderStatus.Cancelled || status === OrderStatus.Closed;
}

/** `subStatus` while an order is UNSHIPPED: it is paid either way. */
export const UnshippedSubStatus = {
  Pending: 'PENDING',
  Processing: 'PROCESSING',
} as const;
export type UnshippedSubStatus = (typeof UnshippedSubStatus)[keyof typeof UnshippedSubStatus];

/** `shopLogisticsType` of createOrderV3. */
export const ShopLogisticsType = {
  /** Platform logistics from a storage the caller names. */
  PlatformFromStorage: 1,
  /** The supplier's own logistics. */
  Supplier: 2,
  /** Platform logistics, the supplier picks the storage. */
  PlatformSupplierStorage: 3,
} as const;
export type ShopLogisticsType = (typeof ShopLogisticsType)[keyof typeof ShopLogisticsType];

/** `orderFlow` of createOrderV3. */
export const OrderFlow = {
  Catalogue: 1,
  /** The store flow: products are the store's, connected to catalogue variants. */
  Store: 2,
} as const;
export type OrderFlow = (typeof OrderFlow)[keyof typeof OrderFlow];

/**
 * The statuses listOrders' `status` filter names one by one, in the vendor's order; the filter
 * value OTHER_ORDER_STATUSES stands for every other status (CLOSED).
 */
export const LISTED_ORDER_STATUSES = [
  OrderStatus.Created,
  OrderStatus.InCart,
  OrderStatus.Unpaid,
  OrderStatus.Unshipped,
  OrderStatus.Shipped,
  OrderStatus.Delivered,
  OrderStatus.Cancelled,
] as const;
/** listOrders' `status` filter value for the statuses LISTED_ORDER_STATUSES leaves out. */
export const OTHER_ORDER_STATUSES = 'OTHER';

/** `status` of a makeup (top-up) order, as the makeup webhook carries it. */
export const MakeupStatus = {
  Created: 'CREATED',
  /** Spelt with one L by the supplier (unlike the order status CANCELLED). */
  Canceled: 'CANCELED',
  /** Paid: the balance grew. */
  Paid: 'PAID',
} as const;
export type MakeupStatus = (typeof MakeupStatus)[keyof typeof MakeupStatus];

/** `iossType` of an order (and of a freight option): how the EU import VAT is settled. */
export const IossType = {
  None: 1,
  /** The caller's own IOSS number. */
  Own: 2,
  /** The supplier's IOSS service. */
  Service: 3,
} as const;
export type IossType = (typeof IossType)[keyof typeof IossType];

/** `payType` of createOrderV2. */
export const PayType = {
  /** Or omitted: the deprecated page payment (svcPayUrl). */
  PayPage: 1,
  /** Balance payment right away. */
  Balance: 2,
  CreateOnly: 3,
} as const;
export type PayType = (typeof PayType)[keyof typeof PayType];

export const DisputeStatus = {
  Processing: 'Processing',
  Completed: 'Completed',
  Cancelled: 'Cancelled',
} as const;
export type DisputeStatus = (typeof DisputeStatus)[keyof typeof DisputeStatus];

/** finallyDeal: 1 refund, 2 reissue, 3 reject. */
export const FinallyDeal = { Refund: 1, Reissue: 2, Reject: 3 } as const;
export type FinallyDeal = (typeof FinallyDeal)[keyof typeof FinallyDeal];
/** expectType: what the caller asks for. */
export const ExpectType = { Refund: 1, Reissue: 2 } as const;
export type ExpectType = (typeof ExpectType)[keyof typeof ExpectType];
/** refundType: where a refund goes. */
export const RefundType = { Balance: 1, Platform: 2 } as const;
export type RefundType = (typeof RefundType)[keyof typeof RefundType];
