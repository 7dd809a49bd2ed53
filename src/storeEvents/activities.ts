/**
 * Delivering one store event (src/storeEvents/contract.ts) to STORE_EVENTS_URL, for the order
 * and dispute workflows' outbox (src/storeEvents/outbox.ts); the events of an order from a
 * connected store go to that store order instead (storeDelivery.ts). One attempt per activity
 * call: the workflow decides when to try again, so it can show attempts and the last answer.
 */
import { Context } from '@temporalio/activity';
import type { MetricCounter } from '@temporalio/common';

import type { StoreEvent } from './contract.js';
import { type StoreEventsOptions, parseStoreSecrets } from '../terms/storeEventsSettings.js';
import { counterOf, METRICS } from '../telemetry/metrics.js';
import type { StoreOrderRef } from '../store/contract.js';
import { DEFAULT_ACCOUNT } from '../accounts/contract.js';
import { sendStoreEvent } from './sending.js';
import {
  deliverToStore,
  STORE_REFUSED_RETRY_MAX_MS,
  StoreWaitReason,
  type StoreLookup,
} from './storeDelivery.js';

export interface DeliverStoreEventInput {
  event: StoreEvent;
  /** 1 for the first attempt at this event. */
  attempt: number;
  /** The store order the event's order came from: the event is written there. */
  store?: StoreOrderRef;
  /** With `store`: the order's account, which must own the connection; absent: the default. */
  account?: string;
}

export type DeliveryResult =
  | { outcome: 'delivered'; status: number }
  /** This worker has no STORE_EVENTS_URL. */
  | { outcome: 'off' }
  | {
      outcome: 'failed';
      /** The store's HTTP status, when it answered. */
      status?: number;
      /** What went wrong, for the operator: no URL path or query, no secret. */
      message: string;
      /** When to try again: the backoff for `attempt`, or the store's Retry-After (bounded). */
      retryInMs: number;
      /** Why a connected store did not take it (`store-refused`, …): a named waiting state. */
      reason?: StoreWaitReason;
    };

export const DEFAULT_RETRY_FIRST_MS = 5_000;
export const DEFAULT_RETRY_MAX_MS = 3_600_000;

/** Prometheus counter of delivery attempts, tagged `result` = `delivered` | `failed`. */
export const STORE_EVENT_DELIVERIES_METRIC = METRICS.storeEventDeliveries.name;

/**
 * The wait before attempt `attempt + 1` after attempt `attempt` failed: `first` doubling per
 * attempt up to `max`; a store's Retry-After instead, kept within [first, max].
 */
export function storeEventRetryMs(
  attempt: number,
  retryAfterMs: number | undefined,
  first = DEFAULT_RETRY_FIRST_MS,
  max = DEFAULT_RETRY_MAX_MS,
): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(retryAfterMs, first), max);
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  return Math.min(first * 2 ** exponent, max);
}

export function storeEventActivities(opts: StoreEventsOptions = {}, stores?: StoreLookup) {
  const url = opts.url === '' ? undefined : opts.url;
  const retryFirstMs = opts.retryFirstMs ?? DEFAULT_RETRY_FIRST_MS;
  const retryMaxMs = opts.retryMaxMs ?? DEFAULT_RETRY_MAX_MS;
  if (url !== undefined) {
    // Configuration checks these first; a worker built without them must not start at all.
    if (opts.secret === undefined) throw new Error('store events: a url needs a secret');
    parseStoreSecrets(opts.secret);
  }
  const target =
    url === undefined || opts.secret === undefined
      ? undefined
      : { url, secret: opts.secret, timeoutMs: opts.timeoutMs };
  // Made from the first attempt's meter: these activities run on one worker, so its tags
  // (namespace, task queue, activity type) are those of every later attempt.
  let deliveries: MetricCounter | undefined;

  return {
    async deliverStoreEvent({
      event,
      attempt,
      store,
      account,
    }: DeliverStoreEventInput): Promise<DeliveryResult> {
      if (store !== undefined) {
        const context = Context.current();
        deliveries ??= counterOf(context.metricMeter, METRICS.storeEventDeliveries);
        return toStore(
          stores,
          { firstMs: retryFirstMs, maxMs: retryMaxMs },
          { event, attempt, store, account: account ?? DEFAULT_ACCOUNT },
          deliveries,
        );
      }
      if (target === undefined) return { outcome: 'off' };
      const context = Context.current();
      deliveries ??= counterOf(context.metricMeter, METRICS.storeEventDeliveries);
      const sent = await sendStoreEvent(target, event);
      if (sent.ok) {
        deliveries.add(1, { result: 'delivered' });
        return { outcome: 'delivered', status: sent.status };
      }
      deliveries.add(1, { result: 'failed' });
      const retryInMs = storeEventRetryMs(attempt, sent.retryAfterMs, retryFirstMs, retryMaxMs);
      context.log.warn('store event not delivered', {
        eventId: event.id,
        eventType: event.type,
        orderNumber: event.orderNumber,
        attempt,
        status: sent.status,
        reason: sent.message,
        retryInMs,
      });
      return {
        outcome: 'failed',
        ...(sent.status !== undefined && { status: sent.status }),
        message: sent.message,
        retryInMs,
      };
    },
  };
}

/** One attempt at writing `event` to its store order. */
async function toStore(
  stores: StoreLookup | undefined,
  retry: { firstMs: number; maxMs: number },
  { event, attempt, store, account }: Required<DeliverStoreEventInput>,
  counter: MetricCounter,
): Promise<DeliveryResult> {
  const log = Context.current().log;
  const out = await deliverToStore(stores, store, event, account);
  if (out.ok) {
    counter.add(1, { result: 'delivered' });
    log.info('store event written to the store', {
      eventId: event.id,
      eventType: event.type,
      orderNumber: event.orderNumber,
      done: out.write.done,
      storeCalls: out.write.calls,
    });
    return { outcome: 'delivered', status: 200 };
  }
  const refused = out.reason === StoreWaitReason.Refused;
  counter.add(1, { result: refused ? 'refused' : 'failed' });
  const retryMax = refused ? Math.min(retry.maxMs, STORE_REFUSED_RETRY_MAX_MS) : retry.maxMs;
  const retryInMs = storeEventRetryMs(attempt, out.retryAfterMs, retry.firstMs, retryMax);
  log.warn('store event not written to the store', {
    eventId: event.id,
    eventType: event.type,
    orderNumber: event.orderNumber,
    attempt,
    reason: out.reason,
    message: out.message,
    retryInMs,
  });
  return {
    outcome: 'failed',
    ...(out.status !== undefined && { status: out.status }),
    message: out.message,
    retryInMs,
    reason: out.reason,
  };
}

export type StoreEventActivities = ReturnType<typeof storeEventActivities>;

declare module '../durable/supplierActivities.js' {
  interface OrdersQueueActivities extends StoreEventActivities {}
}
