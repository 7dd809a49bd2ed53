/** The sandbox HTTP server: the supplier's API, the /__sandbox/ controls, and the background work. */
import Fastify, { type FastifyInstance } from 'fastify';
import { API_PREFIX, SupplierCode } from 'dropflow/supplier';
import { registerAuthRoutes } from './routes/auth.js';
import { registerCatalogueRoutes } from './routes/catalogue.js';
import { registerCatalogueEventControlRoutes } from './routes/catalogueEventControls.js';
import { registerControlRoutes } from './routes/controls.js';
import { registerDisputeRoutes } from './routes/disputes.js';
import { registerInventoryRoutes } from './routes/inventory.js';
import { registerLogisticsRoutes } from './routes/logistics.js';
import { registerOrderControlRoutes } from './routes/orderControls.js';
import { registerOrderQueryRoutes } from './routes/orderQueries.js';
import { registerOrderRoutes } from './routes/orders.js';
import { registerPaymentRoutes } from './routes/payment.js';
import { registerSettingsControlRoutes } from './routes/settingsControls.js';
import { registerShopRoutes } from './routes/shops.js';
import { registerWaybillRoutes } from './routes/waybill.js';
import { registerWebhookRoutes } from './routes/webhooks.js';
import { registerWebhookControlRoutes } from './routes/webhookControls.js';
import { SandboxRouter } from './routing.js';
import { DEFAULT_SANDBOX_OPTIONS, Sandbox } from './sandbox.js';
import type { SandboxOptions } from './host.js';

export interface StartedSandbox {
  url: string;
  sandbox: Sandbox;
  app: FastifyInstance;
  close(): Promise<void>;
}

export interface StartSandboxOptions extends Partial<SandboxOptions> {
  log: SandboxOptions['log'];
  port?: number;
  host?: string;
}

export async function startSandbox(opts: StartSandboxOptions): Promise<StartedSandbox> {
  const { port = 8787, host = '127.0.0.1', ...rest } = opts;
  // An option given as undefined (a CLI flag left out) keeps its default.
  const given = Object.fromEntries(
    Object.entries(rest as Record<string, unknown>).filter(([, value]) => value !== undefined),
  ) as Partial<SandboxOptions>;
  const sandbox = await Sandbox.open({ ...DEFAULT_SANDBOX_OPTIONS, ...given, log: rest.log });
  const app = buildApp(sandbox);
  await app.listen({ port, host });
  const address = app.server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  sandbox.webhooks.start();
  sandbox.lifecycle.start();
  return {
    url: `http://${host}:${boundPort}`,
    sandbox,
    app,
    async close() {
      await app.close();
      await sandbox.close();
    },
  };
}

export function buildApp(sandbox: Sandbox): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 5 * 1024 * 1024 });
  // Waybill files arrive as multipart; the routes read the buffered body.
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (_req, body, done) => {
    done(null, body);
  });
  app.setErrorHandler((err: Error & { statusCode?: number }, req, reply) => {
    const status = err.statusCode ?? 500;
    if (req.url.startsWith(API_PREFIX) && status < 500) {
      // Unreadable bodies get the supplier's parameter error, as the real service answers.
      return reply.code(400).send({
        code: SupplierCode.ParamErrorHttp400,
        result: false,
        success: false,
        message: `Param error: ${err.message}`,
        data: null,
        requestId: null,
      });
    }
    sandbox.options.log.error({ err, url: req.url }, 'sandbox handler failed');
    return reply.code(status).send({ error: status < 500 ? err.message : 'internal error' });
  });

  app.setNotFoundHandler((req, reply) => {
    const body = {
      code: 404,
      result: false,
      success: false,
      message: 'Not Found',
      data: null,
      requestId: null,
    };
    return req.url.startsWith(API_PREFIX)
      ? reply.code(404).send(body)
      : reply.code(404).send({ error: 'not found' });
  });

  const router = new SandboxRouter(app, sandbox);
  registerAuthRoutes(router);
  registerCatalogueRoutes(router);
  registerLogisticsRoutes(router);
  registerInventoryRoutes(router);
  registerOrderRoutes(router);
  registerOrderQueryRoutes(router);
  registerPaymentRoutes(router);
  registerWaybillRoutes(router);
  registerDisputeRoutes(router);
  registerShopRoutes(router);
  registerWebhookRoutes(router);
  registerControlRoutes(app, sandbox);
  registerOrderControlRoutes(app, sandbox);
  registerSettingsControlRoutes(app, sandbox);
  registerCatalogueEventControlRoutes(app, sandbox);
  registerWebhookControlRoutes(app, sandbox);
  return app;
}
