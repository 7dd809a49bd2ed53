/**
 * Which supplier messages are worth a signal to an order (each signal is a billed Temporal
 * action): an order learns CREATED, IN_CART, UNPAID and UNSHIPPED from its own calls (and a lost
 * answer is settled by a look-up, not by waiting for a webhook), so only the statuses from
 * SHIPPED on — and the ended ones — are told; a LOGISTIC message is told only when it brings a
 * tracking number, link or line the order was not told yet by this gateway. The rest is
 * acknowledged and dropped.
 */
import { endedStatus, OrderStatus, reachedStatus } from '../supplier/api/constants.js';
import type { SupplierNews } from '../order/contract.js';

export function orderStatusWorthTelling(status: string | undefined): boolean {
  return status === undefined || reachedStatus(status, OrderStatus.Shipped) || endedStatus(status);
}

/** Tracking facts told per svc order id, in this process (bounded, oldest forgotten first). */
export class TrackingTold {
  private readonly told = new Map<string, string>();

  constructor(private readonly limit = 10_000) {}

  /** Whether the news brings tracking facts not told yet for its order. */
  isNew(news: SupplierNews): boolean {
    if (news.svcOrderId === undefined) return true;
    const facts = this.factsOf(news);
    return facts !== undefined && this.told.get(news.svcOrderId) !== facts;
  }

  /** The news reached the order. */
  remember(news: SupplierNews): void {
    const facts = this.factsOf(news);
    if (news.svcOrderId === undefined || facts === undefined) return;
    this.told.delete(news.svcOrderId);
    this.told.set(news.svcOrderId, facts);
    if (this.told.size > this.limit) this.told.delete(this.told.keys().next().value!);
  }

  private factsOf(news: SupplierNews): string | undefined {
    if (news.trackNumber === undefined && news.trackingUrl === undefined) return undefined;
    return JSON.stringify([news.trackNumber, news.trackingUrl, news.logisticName]);
  }
}
