/**
 * One parcel as the store is told of it: the store order's lines it carries, and its tracking.
 * Made from the order's store events (src/storeEvents/storeParcels.ts); written to each platform by
 * its tracking writer (src/store/shopify/tracking.ts, src/store/woocommerce/tracking.ts).
 */
export interface StoreParcel {
  /** The supplier's parcel code (an old order's one parcel: its supplier order id). */
  code: string;
  lines: { storeLineId: string; quantity: number }[];
  trackNumber?: string;
  trackingUrl?: string;
  /** The carrier shown to the customer. */
  company?: string;
}

/** The store order, as the outbound writers need it. */
export interface StoreOrderTarget {
  orderId: string;
  orderName: string;
  /** Every line of the store order that dropflow fulfils, with its quantity. */
  lines: { storeLineId: string; quantity: number }[];
  notifyCustomer: boolean;
}

/** The text of a note that says it came from dropflow, so that it is written once. */
export const NOTE_MARK = '[dropflow]';
