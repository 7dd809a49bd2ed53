/** The Shopify double over HTTP: the Admin GraphQL API and the `/__shopify/*` controls. */
import Fastify, { type FastifyInstance } from 'fastify';

import { listenOnLoopback, numericId } from '../listen.js';
import { ShopifyDouble, type ShopifyDoubleOptions } from './double.js';
import type { NewShopOrder, ShopOrder } from './shop.js';
import type { ShopifyTopic } from './webhooks.js';

export interface StartedShopifyDouble {
  url: string;
  double: ShopifyDouble;
  close(): Promise<void>;
}

export async function startShopifyDouble(
  opts: ShopifyDoubleOptions & { port?: number } = {},
): Promise<StartedShopifyDouble> {
  const double = new ShopifyDouble(opts);
  const app = Fastify({ logger: false });
  registerApi(app, double);
  registerControls(app, double);
  const listening = await listenOnLoopback(app, opts.port);
  return { url: listening.url, double, close: () => listening.close() };
}

function registerApi(app: FastifyInstance, double: ShopifyDouble): void {
  app.post('/admin/api/:version/graphql.json', async (req, reply) => {
    const { version } = req.params as { version: string };
    if (!/^(\d{4}-\d{2}|unstable)$/.test(version))
      return reply.code(404).send({ errors: 'Not Found' });
    const token = req.headers['x-shopify-access-token'];
    const answer = double.graphql(version, typeof token === 'string' ? token : undefined, req.body);
    if (answer.loseAnswer) {
      // It acted; the caller never hears so.
      reply.hijack();
      req.raw.socket.destroy();
      return;
    }
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  });
}

function registerControls(app: FastifyInstance, double: ShopifyDouble): void {
  const withOrder = (params: unknown) => {
    const id = numericId(params);
    return id === undefined ? undefined : double.order(id);
  };
  app.post('/__shopify/orders', async (req) => double.createOrder(req.body as NewShopOrder));
  app.get(
    '/__shopify/orders/:id',
    async (req, reply) => withOrder(req.params) ?? reply.code(404).send({ error: 'no such order' }),
  );
  app.post('/__shopify/orders/:id/pay', async (req) => {
    await double.pay(numericId(req.params) ?? 0);
    return { ok: true };
  });
  app.post('/__shopify/orders/:id/cancel', async (req) => {
    await double.cancel(
      numericId(req.params) ?? 0,
      (req.body as { reason?: string } | null)?.reason,
    );
    return { ok: true };
  });
  app.post('/__shopify/orders/:id/redeliver', async (req) => {
    const topic = (req.body as { topic?: ShopifyTopic } | null)?.topic;
    return (await double.redeliver(numericId(req.params) ?? 0, topic)) ?? { sent: false };
  });
  app.post('/__shopify/token', (req) => {
    const { revoked, token } = (req.body ?? {}) as { revoked?: boolean; token?: string };
    if (revoked === true) double.revokeToken();
    else double.restoreToken(token);
    return { ok: true };
  });
  app.post('/__shopify/scopes', (req) => {
    double.setScopes((req.body as { scopes: string[] }).scopes);
    return { ok: true };
  });
  app.post('/__shopify/faults', (req) => {
    const { throttle, loseAnswer } = (req.body ?? {}) as {
      throttle?: number;
      loseAnswer?: { field: string; times?: number };
    };
    if (throttle !== undefined) double.throttle(throttle);
    if (loseAnswer !== undefined) double.loseAnswer(loseAnswer.field, loseAnswer.times);
    return { ok: true };
  });
  app.put('/__shopify/webhooks', (req) => {
    double.webhookUrl = (req.body as { url?: string }).url;
    return { ok: true };
  });
  app.get('/__shopify/webhooks', () => double.sent);
  app.get('/__shopify/stats', () => double.stats);
}

/**
 * A customer orders on a running Shopify double, over HTTP (its `/__shopify/orders` control): the
 * double sends `orders/create` (and `orders/paid` for a paid order) to its webhook URL, signed as
 * Shopify signs them. For benches and tests whose double runs in another process (`dropflow dev`).
 */
export async function placeShopifyOrder(
  doubleUrl: string,
  order: NewShopOrder,
): Promise<ShopOrder> {
  const res = await fetch(`${doubleUrl}/__shopify/orders`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(order),
  });
  if (!res.ok) throw new Error(`the Shopify double at ${doubleUrl} answered ${res.status}`);
  return (await res.json()) as ShopOrder;
}

/** An order of a running Shopify double as it holds it now (its fulfillments, tags, note). */
export async function shopifyDoubleOrder(
  doubleUrl: string,
  id: number,
): Promise<ShopOrder | undefined> {
  const res = await fetch(`${doubleUrl}/__shopify/orders/${id}`);
  if (res.status === 404) return undefined;
  if (!res.ok) throw new Error(`the Shopify double at ${doubleUrl} answered ${res.status}`);
  return (await res.json()) as ShopOrder;
}
