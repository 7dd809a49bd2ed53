/**
 * Which supplier calls go first when the account's queue has a backlog. Every supplier request
 * of an account shares one budget (temporal/taskQueues.ts); under a backlog the Temporal server
 * hands out the tasks with the lowest priority key first, so the calls that decide whether money
 * moves (or whether a payment already moved) are never stuck behind sweeps and planning.
 * Sandbox-safe: types only.
 */
import type { BatchActivities, SupplierActivities } from './supplierActivities.js';

export const SupplierPriority = {
  /** Payments, the balance, and the look-ups that settle a call in doubt. */
  Money: 1,
  /** The cart: addCart, addCartConfirm, the parent order that gives the payId. */
  Cart: 2,
  /** Creates and what plans or corrects them: freight, stock, connections, logistics, waybill. */
  Create: 3,
  /** The tracking sweep's status and proof-of-delivery queries. */
  Tracking: 4,
  /** Everything else: disputes, catalogue. */
  Other: 5,
} as const;
export type SupplierPriority = (typeof SupplierPriority)[keyof typeof SupplierPriority];

/** Every supplier activity an order or dispute workflow calls, by class. A new one must be named. */
export const SUPPLIER_ACTIVITY_PRIORITY: {
  readonly [K in keyof SupplierActivities]: SupplierPriority;
} = {
  payBalanceV2: SupplierPriority.Money,
  getBalance: SupplierPriority.Money,
  ordersOfShipment: SupplierPriority.Money,
  addCart: SupplierPriority.Cart,
  addCartConfirm: SupplierPriority.Cart,
  addCartBatch: SupplierPriority.Cart,
  addCartConfirmBatch: SupplierPriority.Cart,
  saveGenerateParentOrder: SupplierPriority.Cart,
  createOrderV3: SupplierPriority.Create,
  freightCalculate: SupplierPriority.Create,
  queryInventoryByVid: SupplierPriority.Create,
  createConnection: SupplierPriority.Create,
  variantsBySku: SupplierPriority.Create,
  connectedStoreVariants: SupplierPriority.Create,
  getOrderLogisticsInfo: SupplierPriority.Create,
  updateLogistics: SupplierPriority.Create,
  uploadWaybillInfo: SupplierPriority.Create,
  deleteOrder: SupplierPriority.Create,
  disputeProducts: SupplierPriority.Other,
  disputeConfirmInfo: SupplierPriority.Other,
  createDispute: SupplierPriority.Other,
  cancelDispute: SupplierPriority.Other,
  getDisputeList: SupplierPriority.Other,
};

/** In an order workflow a batch query settles a call in doubt: it goes with the payments. */
export const BATCH_ACTIVITY_PRIORITY: { readonly [K in keyof BatchActivities]: SupplierPriority } =
  {
    getOrderDetailBatch: SupplierPriority.Money,
    getProofOfDelivery: SupplierPriority.Tracking,
  };

/** An object whose every method is the one of the stub of that method's priority class. */
export function byPriority<T extends object>(
  classOf: { readonly [K in keyof T]: SupplierPriority },
  stub: (priority: SupplierPriority) => T,
): T {
  const stubs = new Map<SupplierPriority, T>();
  const stubOf = (p: SupplierPriority): T => {
    let s = stubs.get(p);
    if (s === undefined) {
      s = stub(p);
      stubs.set(p, s);
    }
    return s;
  };
  const names = Object.keys(classOf) as (keyof T)[];
  return Object.fromEntries(names.map((name) => [name, stubOf(classOf[name])[name]])) as T;
}
