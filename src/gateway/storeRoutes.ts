/**
 * `POST /webhooks/store/<connection>`: a store connection's webhooks (docs/store-shopify.md,
 * docs/store-woocommerce.md). An unknown connection (404) and a post without the platform's
 * signature header (401) are answered from the headers, before the body is read, except
 * WooCommerce's save-time ping (unsigned, a few bytes: `webhook_id=<n>`), answered 200.
 *
 * 1. The raw body, size-capped (413), is verified before anything else: Shopify's
 *    `X-Shopify-Hmac-Sha256` with the app's client secret, WooCommerce's `X-WC-Webhook-Signature`
 *    with the webhook's secret — each Base64(HMAC-SHA256(secret, raw body)), compared in constant
 *    time (node:crypto's timingSafeEqual: a platform SDK adds nothing to ten lines). Missing or
 *    wrong → 401, nothing started.
 * 2. The store order goes the one intake path (store/intake/handOver.ts), the same as a WooCommerce
 *    site's order sweep: an order the store hands over (Shopify `orders/create`, `orders/paid`,
 *    `orders/updated` per the connection's trigger; WooCommerce `order.created`/`order.updated`
 *    once paid) starts its order workflow, `order:<connection>-<store order id>`, once: a
 *    re-delivery (same event id, or another event of the same order) starts nothing new. An unpaid
 *    order under the `orders/paid` trigger (and an unpaid WooCommerce order) waits: its payment's
 *    webhook starts it.
 * 3. A cancellation (Shopify `orders/cancelled`, WooCommerce `order.deleted` or a cancelled status)
 *    and an edit of an order already started become the `storeOrder` signal: the order decides.
 * 4. Temporal calls run under a deadline well inside Shopify's 5 s: no answer → 503 and the store
 *    sends it again. Bodies and personal data are never logged.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { OrderInvalidError, type OrderClient } from '../client/orderClient.js';
import { storeOrderIntake } from '../client/storeIntake.js';
import type { Logger } from '../telemetry/log.js';
import { STORE_WEBHOOK_PREFIX } from '../store/contract.js';
import {
  isStoreConnectionId,
  StorePlatform,
  type Store,
  type StoreDirectory,
} from '../accounts/contract.js';
import { handOver } from '../store/intake/handOver.js';
import { isWooPing, readStoreWebhook } from '../store/intake/webhooks.js';
import { verifyWebhookSignature } from '../supplier/webhookSignature.js';
import { AcceptedMessages } from './acceptedMessages.js';
import { rawBody, registerRawBodyRoutes } from './rawBody.js';

export interface StoreRouteOptions {
  stores: StoreDirectory;
  orders: OrderClient;
  /** Runs the Temporal calls of one webhook under its deadline. */
  withinDeadline: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Bytes; larger bodies are refused with 413. */
  bodyLimit: number;
  log: Logger;
}

export function registerStoreRoutes(app: FastifyInstance, opts: StoreRouteOptions): void {
  const { log } = opts;
  const intake = storeOrderIntake(opts.orders);
  const done = new AcceptedMessages();
  registerRawBodyRoutes(app, opts.bodyLimit, (scope) => {
    scope.post<{ Params: { connection: string } }>(
      `${STORE_WEBHOOK_PREFIX}:connection`,
      { bodyLimit: opts.bodyLimit, onRequest: refuseUnread(opts.stores) },
      async (req, reply) => {
        const id = req.params.connection;
        const store = storeOf(opts.stores, id);
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
          const outcome = await opts.withinDeadline(() => handOver(intake, store, hook.webhook));
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

/** The bytes of `webhook_id=<n>` with room to spare: an unsigned post this small may be a ping. */
const WOO_PING_MAX_BYTES = 64;

const storeOf = (stores: StoreDirectory, id: string): Store | undefined =>
  isStoreConnectionId(id) ? stores.store(id) : undefined;

/**
 * Before the body is read: a post to no connection (404) or without a signature (401) costs no
 * read, and its connection is closed rather than drained. An unsigned post of a few bytes to a
 * WooCommerce connection goes on: the handler answers the ping and refuses anything else.
 */
function refuseUnread(stores: StoreDirectory) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const store = storeOf(stores, (req.params as { connection: string }).connection);
    if (store === undefined) {
      return reply.code(404).header('connection', 'close').send({ error: 'not found' });
    }
    if (signatureOf(store, req) !== undefined) return undefined;
    const small = Number(req.headers['content-length']) <= WOO_PING_MAX_BYTES;
    if (store.platform === StorePlatform.WooCommerce && small) return undefined;
    return reply
      .code(401)
      .header('connection', 'close')
      .send({ error: 'invalid or missing signature' });
  };
}

function signatureOf(store: Store, req: FastifyRequest): string | undefined {
  const header =
    store.platform === StorePlatform.Shopify
      ? req.headers['x-shopify-hmac-sha256']
      : req.headers['x-wc-webhook-signature'];
  return typeof header === 'string' && header !== '' ? header : undefined;
}

/** The platform's signature of exactly these bytes, with the connection's secret. */
function signed(store: Store, req: FastifyRequest, raw: Buffer): boolean {
  const key =
    store.platform === StorePlatform.Shopify
      ? store.secrets.clientSecret
      : store.secrets.webhookSecret;
  return verifyWebhookSignature(key, raw, signatureOf(store, req));
}
