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
