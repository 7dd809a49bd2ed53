/**
 * What becomes of a store order dropflow hears of, the one path for the store's webhook
 * (gateway/storeRoutes.ts) and the order sweep of a WooCommerce site (sweepActivities.ts), so
 * that one store order is one dropflow order whichever of them comes first:
 *
 * - an order the store hands over (any order under the `orders/create` trigger, a paid one under
 *   `orders/paid`; WooCommerce: paid) starts `order:<connection>-<store order id>` once; a second
 *   hand-over finds it there and starts nothing (a later event of it may carry an edit);
 * - an unpaid order under the `orders/paid` trigger waits for the news that pays it;
 * - a cancellation, and an edit of an order already started, become the `storeOrder` signal.
 */
import type { StoreOrderNews } from '../contract.js';
import { OrderTrigger, type Store } from '../../accounts/contract.js';
import { orderDocument, orderFields, storeLines, type StoreOrderFacts } from './storeOrder.js';
import type { WebhookKind } from './webhooks.js';

/** How a store order reaches Temporal (the entry points make it from their OrderClient). */
export interface OrderIntake {
  /**
   * Starts the order of `document` once; `existing` when its workflow was started before (by a
   * webhook or a sweep), whatever its input. Throws the client's OrderInvalidError when dropflow
   * cannot take the order as it is.
   */
  start(document: Record<string, unknown>): Promise<'started' | 'existing'>;
  /** Tells a started order; false when the store order has no order workflow. */
  tell(store: Store, storeOrderId: string, news: StoreOrderNews): Promise<boolean>;
}

/** What became of a store order, as the webhook's 200 answer and the sweep's counts say it. */
export type StoreOutcome =
  | 'started'
  | 'existing'
  | 'signalled'
  | 'waiting-for-payment'
  | 'no-order'
  | 'ignored'
  | 'duplicate';

/** One piece of store news: the event's id, what it means, the order as the store has it. */
export interface StoreNewsIn {
  eventId: string;
  kind: WebhookKind;
  facts?: StoreOrderFacts;
}

export async function handOver(
  intake: OrderIntake,
  store: Store,
  hook: StoreNewsIn,
): Promise<StoreOutcome> {
  const facts = hook.facts;
  if (facts === undefined) return 'ignored';
  const news = {
    eventId: hook.eventId,
    ...(facts.updatedAt !== undefined && { at: facts.updatedAt }),
  };
  // The store order's own word (read from the signed body), not the event's topic.
  if (facts.cancelled) {
    return told(
      await intake.tell(store, facts.orderId, {
        ...news,
        kind: 'cancelled',
        ...(facts.cancelReason !== undefined && { reason: facts.cancelReason }),
      }),
    );
  }
  const handsOver = store.orderTrigger === OrderTrigger.Created || facts.paid;
  if (!handsOver) {
    // Already started (trigger changed since, or paid and refunded): the edit still counts.
    const sent = await intake.tell(store, facts.orderId, editNews(news, facts));
    return sent ? 'signalled' : 'waiting-for-payment';
  }
  if ((await intake.start(orderDocument(store, facts))) === 'started') return 'started';
  // The order was there: a later event of it may carry an edit.
  if (hook.kind !== 'updated') return 'existing';
  await intake.tell(store, facts.orderId, editNews(news, facts));
  return 'existing';
}

const told = (sent: boolean): StoreOutcome => (sent ? 'signalled' : 'no-order');

function editNews(
  news: Pick<StoreOrderNews, 'eventId' | 'at'>,
  facts: StoreOrderFacts,
): StoreOrderNews {
  const { products, ...rest } = orderFields(facts);
  return { ...news, kind: 'updated', order: { ...rest, products }, lines: storeLines(facts) };
}
