/**
 * `POST /webhooks/store/<connection>`: a store connection's webhooks (docs/store-shopify.md,
 * docs/store-woocommerce.md). An unknown connection answers 404 before the body is read.
 *
 * 1. The raw body, size-capped (413), is verified before anything else: Shopify's
 *    `X-Shopify-Hmac-Sha256` with the app's client secret, WooCommerce's `X-WC-Webhook-Signature`
 *    with the webhook's secret — each Base64(HMAC-SHA256(secret, raw body)), compared in constant
 *    time (node:crypto's timingSafeEqual: a platform SDK adds nothing to ten lines). Missing or
 *    wrong → 401, nothing started.
 * 2. An order the store hands over (Shopify `orders/create`, `orders/paid`, `orders/updated` per
 *    the connection's trigger; WooCommerce `order.created`/`order.updated` once paid) starts its
 *    order workflow, `order:<connection>-<store order id>`, once: a re-delivery (same event id, or
 *    another event of the same order) starts nothing new. An unpaid order under the `orders/paid`
 *    trigger (and an unpaid WooCommerce order) waits: its payment's webhook starts it.
 * 3. A cancellation (Shopify `orders/cancelled`, WooCommerce `order.deleted` or a cancelled status)
 *    and an edit of an order already started become the `storeOrder` signal: the order decides.
 * 4. Temporal calls run under a deadline well inside Shopify's 5 s: no answer → 503 and the store
 *    sends it again. Bodies and personal data are never logged.
 */
import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';

import { OrderConflictError, OrderInvalidError, type OrderClient } from '../client/orderClient.js';
import type { Logger } from '../log.js';
import { orderWorkflowId } from '../order/contract.js';
import {
  isStoreConnectionId,
  OrderTrigger,
  storeOrderNumber,
  storeOrderSignal,
  StorePlatform,
  STORE_WEBHOOK_PREFIX,
  type Store,
  type StoreDirectory,
  type StoreOrderNews,
} from '../store/contract.js';
import { isWooPing, readStoreWebhook, type StoreWebhook } from '../store/intake/webhooks.js';
import { orderDocument, orderFields, storeLines } from '../store/intake/storeOrder.js';
import { verifyWebhookSignature } from '../supplier/webhookSignature.js';
import { AcceptedMessages } from './acceptedMessages.js';
import { rawBody, registerRawBodyRoutes } from './rawBody.js';

export interface StoreRouteOptions {
  stores: StoreDirectory;
  client: Client;
  orders: OrderClient;
  /** Runs the Temporal calls of one webhook under its deadline. */
  withinDeadline: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Bytes; larger bodies are refused with 413. */
  bodyLimit: number;
  log: Logger;
}

/** What became of a store webhook, as the 200 answer says it. */
export type StoreOutcome =
  | 'started'
  | 'existing'
  | 'signalled'
  | 'waiting-for-payment'
  | 'no-order'
  | 'ignored'
  | 'duplicate';

export function registerStoreRoutes(app: FastifyInstance, opts: StoreRouteOptions): void {
  const { log } = opts;
  const done = new AcceptedMessages();
  registerRawBodyRoutes(app, opts.bodyLimit, (scope) => {
    scope.post<{ Params: { connection: string } }>(
      `${STORE_WEBHOOK_PREFIX}:connection`,
      { bodyLimit: opts.bodyLimit },
      async (req, reply) => {
        const id = req.params.connection;
        const store = isStoreConnectionId(id) ? opts.stores.store(id) : undefined;
        if (store === undefined) return reply.code(404).send({ error: 'not found' });
        const raw = rawBody(req);
        // WooCommerce pings a webhook when it is saved; the ping asks for nothing.
        if (store.platform === StorePlatform.WooCommerce && isWooPing(raw)) {
          return reply.code(200).send({ outcome: 'ignored' });
        }
        if (!signed(store, req, raw)) {
          log.warn({ connection: id, bytes: raw.length }, 'store webhook: bad signature');
          return reply.code(401).send({ error: 'invalid or missing signature' });
        }
        const hook = readStoreWebhook(store, req.headers, raw);
        if (!hook.ok) {
          log.warn({ connection: id, issues: hook.issues }, 'store webhook: unreadable');
          return reply.code(hook.status).send({ errors: hook.issues });
        }
        const seenId = `${id}:${hook.webhook.eventId}`;
        if (done.get(seenId) !== undefined) return reply.code(200).send({ outcome: 'duplicate' });
        try {
          const outcome = await opts.withinDeadline(() => handle(opts, store, hook.webhook));
          done.add(seenId, outcome);
          log.info(
            {
              connection: id,
              topic: hook.webhook.topic,
              orderId: hook.webhook.facts?.orderId,
              outcome,
            },
            'store webhook accepted',
          );
          return await reply.code(200).send({ outcome });
        } catch (err) {
          if (err instanceof OrderInvalidError) {
            // Answered as a failure: the store shows it and sends it again; an edit re-sends it.
            log.warn({ connection: id, issues: err.issues }, 'store webhook: order refused');
            return reply.code(422).send({ errors: err.issues });
          }
          log.warn({ err, connection: id }, 'store webhook: not handed to Temporal; answered 503');
          return reply.code(503).send({ error: 'not accepted yet; retry' });
        }
      },
    );
  });
}

/** The platform's signature of exactly these bytes, with the connection's secret. */
function signed(store: Store, req: FastifyRequest, raw: Buffer): boolean {
  const header =
    store.platform === StorePlatform.Shopify
      ? req.headers['x-shopify-hmac-sha256']
      : req.headers['x-wc-webhook-signature'];
  const key =
    store.platform === StorePlatform.Shopify
      ? store.secrets.clientSecret
      : store.secrets.webhookSecret;
  return verifyWebhookSignature(key, raw, typeof header === 'string' ? header : undefined);
}

async function handle(
  opts: StoreRouteOptions,
  store: Store,
  hook: StoreWebhook,
): Promise<StoreOutcome> {
  const facts = hook.facts;
  if (facts === undefined) return 'ignored';
  const news = {
    eventId: hook.eventId,
    ...(facts.updatedAt !== undefined && { at: facts.updatedAt }),
  };
  if (hook.kind === 'cancelled' || facts.cancelled) {
    return signalOrder(opts, store, facts.orderId, {
      ...news,
      kind: 'cancelled',
      ...(facts.cancelReason !== undefined && { reason: facts.cancelReason }),
    });
  }
  const handsOver = store.orderTrigger === OrderTrigger.Created || facts.paid;
  if (!handsOver) {
    // Already started (trigger changed since, or paid and refunded): the edit still counts.
    const told = await signalOrder(opts, store, facts.orderId, editNews(news, facts));
    return told === 'signalled' ? told : 'waiting-for-payment';
  }
  try {
    const result = await opts.orders.submit(orderDocument(store, facts), { reuse: false });
    if (result.outcome === 'started') return 'started';
  } catch (err) {
    if (!(err instanceof OrderConflictError)) throw err;
  }
  // The order was there: a later event of it may carry an edit.
  if (hook.kind !== 'updated') return 'existing';
  await signalOrder(opts, store, facts.orderId, editNews(news, facts));
  return 'existing';
}

function editNews(
  news: Pick<StoreOrderNews, 'eventId' | 'at'>,
  facts: NonNullable<StoreWebhook['facts']>,
): StoreOrderNews {
  const { products, ...rest } = orderFields(facts);
  return { ...news, kind: 'updated', order: { ...rest, products }, lines: storeLines(facts) };
}

async function signalOrder(
  opts: StoreRouteOptions,
  store: Store,
  storeOrderId: string,
  news: StoreOrderNews,
): Promise<StoreOutcome> {
  const workflowId = orderWorkflowId(storeOrderNumber(store.id, storeOrderId), store.account);
  try {
    await opts.client.workflow.getHandle(workflowId).signal(storeOrderSignal, news);
    return 'signalled';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'no-order';
    throw err;
  }
}
