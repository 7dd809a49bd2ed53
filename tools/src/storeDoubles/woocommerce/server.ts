/** The WooCommerce double over HTTP: REST v3, Shipment Tracking, the REST index, `/__woo/*`. */
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type HTTPMethods,
} from 'fastify';

import { listenOnLoopback, numericId } from '../listen.js';
import { WooDouble, type WooDoubleOptions, type WooPermissions } from './double.js';
import { listOrders } from './orderList.js';
import type { NewWooOrder, WooOrder } from './site.js';

export interface StartedWooDouble {
  url: string;
  double: WooDouble;
  close(): Promise<void>;
}

export async function startWooDouble(
  opts: WooDoubleOptions & { port?: number } = {},
): Promise<StartedWooDouble> {
  const double = new WooDouble(opts);
  const app = Fastify({ logger: false });
  registerApi(app, double);
  registerControls(app, double);
  const listening = await listenOnLoopback(app, opts.port);
  double.siteUrl = listening.url;
  return { url: listening.url, double, close: () => listening.close() };
}

function credentials(req: FastifyRequest): { key?: string; secret?: string } {
  const header = req.headers.authorization;
  if (header?.startsWith('Basic ') === true) {
    const [key, ...rest] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
    return { key, secret: rest.join(':') };
  }
  const q = req.query as { consumer_key?: string; consumer_secret?: string };
  return { key: q.consumer_key, secret: q.consumer_secret };
}

const NO_ROUTE = {
  code: 'rest_no_route',
  message: 'No route was found matching the URL and request method.',
  data: { status: 404 },
};
const NO_ORDER = {
  code: 'woocommerce_rest_shop_order_invalid_id',
  message: 'Invalid ID.',
  data: { status: 404 },
};

type Handler = (order: WooOrder, req: FastifyRequest) => unknown;

/** The double's refusal of a request it did not admit (failures armed, the rate limit, the key). */
function refusal(double: WooDouble, name: string, req: FastifyRequest, reply: FastifyReply) {
  const refused = double.admit(name, req.method, credentials(req));
  if (refused === undefined) return undefined;
  return reply
    .code(refused.status)
    .headers(refused.headers ?? {})
    .send({ code: refused.code, message: refused.message, data: { status: refused.status } });
}

/** One API route: admission, the order, the lost-answer switch, then the handler's answer. */
function route(double: WooDouble, name: string, handler: Handler, status = 200) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const refused = refusal(double, name, req, reply);
    if (refused !== undefined) return refused;
    if (name.includes('tracking') && !double.shipmentTracking)
      return reply.code(404).send(NO_ROUTE);
    const order = double.site.orders.get(numericId(req.params) ?? 0);
    if (order === undefined) return reply.code(404).send(NO_ORDER);
    const body = handler(order, req);
    if (double.losesAnswer(name)) {
      reply.hijack();
      req.raw.socket.destroy();
      return;
    }
    return reply.code(status).send(body);
  };
}

function registerApi(app: FastifyInstance, double: WooDouble): void {
  const site = double.site;
  app.get('/wp-json/', () => ({
    name: 'WooCommerce double',
    url: double.siteUrl,
    namespaces: [
      'wp/v2',
      'wc/v3',
      'wc/store/v1',
      ...(double.shipmentTracking ? ['wc-shipment-tracking/v3'] : []),
    ],
  }));
  app.get('/wp-json/wc/v3/orders', async (req, reply) => {
    const refused = refusal(double, 'GET orders', req, reply);
    if (refused !== undefined) return refused;
    const answer = listOrders(site.orders.values(), req.query as Record<string, string>);
    return reply.code(answer.status).headers(answer.headers).send(answer.body);
  });
  const order = '/wp-json/wc/v3/orders/:id';
  const tracking = '/wp-json/wc-shipment-tracking/v3/orders/:id/shipment-trackings';
  const routes: [HTTPMethods, string, string, Handler, number?][] = [
    ['GET', order, 'GET order', (o) => o],
    [
      'PUT',
      order,
      'PUT order',
      (o, req) => {
        site.update(o, req.body as Parameters<typeof site.update>[1]);
        return o;
      },
    ],
    ['GET', `${order}/notes`, 'GET notes', (o) => site.notes.get(o.id) ?? []],
    [
      'POST',
      `${order}/notes`,
      'POST notes',
      (o, req) => {
        const { note, customer_note } = req.body as { note: string; customer_note?: boolean };
        return site.addNote(o.id, note, customer_note === true);
      },
      201,
    ],
    ['GET', tracking, 'GET tracking', (o) => site.trackings.get(o.id) ?? []],
    ['POST', tracking, 'POST tracking', (o, req) => addTracking(site, o, req.body), 201],
  ];
  for (const [method, url, name, handler, status] of routes) {
    app.route({ method, url, handler: route(double, name, handler, status) });
  }
}

function addTracking(site: WooDouble['site'], o: WooOrder, body: unknown) {
  const b = body as {
    tracking_provider?: string;
    custom_tracking_provider?: string;
    custom_tracking_link?: string;
    tracking_number: string;
    date_shipped?: string;
  };
  return site.addTracking(o.id, {
    tracking_provider: b.custom_tracking_provider ?? b.tracking_provider ?? '',
    tracking_link: b.custom_tracking_link ?? '',
    tracking_number: b.tracking_number,
    date_shipped: b.date_shipped ?? new Date().toISOString().slice(0, 10),
  });
}

function registerControls(app: FastifyInstance, double: WooDouble): void {
  app.post('/__woo/orders', async (req) => double.createOrder(req.body as NewWooOrder));
  app.get('/__woo/orders/:id', async (req, reply) => {
    const id = numericId(req.params) ?? 0;
    const order = double.site.orders.get(id);
    if (order === undefined) return reply.code(404).send({ error: 'no such order' });
    return {
      order,
      notes: double.site.notes.get(id) ?? [],
      trackings: double.site.trackings.get(id) ?? [],
    };
  });
  app.post('/__woo/orders/:id/status', async (req) => {
    await double.setStatus(
      numericId(req.params) ?? 0,
      (req.body as { status: WooOrder['status'] }).status,
    );
    return { ok: true };
  });
  app.post('/__woo/key', (req) => {
    const { revoked, key, secret, permissions } = (req.body ?? {}) as {
      revoked?: boolean;
      key?: string;
      secret?: string;
      permissions?: WooPermissions;
    };
    if (permissions !== undefined) double.permissions = permissions;
    if (revoked === true) double.revokeKey();
    else if (revoked === false || key !== undefined) double.restoreKey(key, secret);
    return { ok: true };
  });
  app.post('/__woo/faults', (req) => {
    const { fail, loseAnswer, shipmentTracking, loseWebhooks } = (req.body ?? {}) as {
      fail?: { count: number; status: number };
      loseAnswer?: { route: string; times?: number };
      shipmentTracking?: boolean;
      /** The next n webhooks are never delivered (WooCommerce does not retry). */
      loseWebhooks?: number;
    };
    if (loseWebhooks !== undefined) double.loseWebhooks(loseWebhooks);
    if (fail !== undefined) double.fail(fail.count, fail.status);
    if (loseAnswer !== undefined) double.loseAnswer(loseAnswer.route, loseAnswer.times);
    if (shipmentTracking !== undefined) double.shipmentTracking = shipmentTracking;
    return { ok: true };
  });
  app.put('/__woo/webhooks', (req) => {
    double.webhookUrl = (req.body as { url?: string }).url;
    return { ok: true };
  });
  app.get('/__woo/webhooks', () => double.sent);
  app.get('/__woo/stats', () => double.stats);
}
