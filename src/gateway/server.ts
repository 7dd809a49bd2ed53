/**
 * The gateway: supplier webhooks in (`POST /webhooks/<account>`; the default account's also at
 * `/webhooks/supplier`), order intake
 * for upstream systems (`/v1/orders`), health (`/healthz`, `/readyz`), and the Temporal UI's codec
 * server (`/codec/encode`, `/codec/decode`) when payloads are encrypted. Stateless: run as many as
 * you like behind a load balancer; dedup and state live in Temporal.
 *
 * Bounded everywhere: body sizes, request and keep-alive timeouts, a deadline on every Temporal
 * call. Error answers are short JSON without stack traces.
 */
import type { MarginRule } from '../terms/margin.js';

import type { Client } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';

import type { AccountDirectory, StoreDirectory } from '../accounts/contract.js';
import { OrderClient, type OrderClientOptions } from '../client/orderClient.js';
import type { Logger } from '../telemetry/log.js';
import { isLoopbackHost } from '../net/outboundUrl.js';
import type { TaskQueues } from '../temporal/taskQueues.js';
import { checkoutOrderBoundMs } from '../checkout/contract.js';
import type { CheckoutSettings } from '../terms/checkoutSettings.js';
import { bearerCheck } from './bearer.js';
import { CODEC_PATH, registerCodecRoutes } from './codecRoutes.js';
import { withinDeadline } from './deadline.js';
import { registerHealthRoutes } from './healthRoutes.js';
import { DEFAULT_INTAKE_LIMITS, type IntakeLimits } from './intakeLimits.js';
import { registerIntakeRoutes } from './intakeRoutes.js';
import { registerStoreRoutes } from './storeRoutes.js';
import { countResponse } from './metrics.js';
import { signingKey, type OpenIdSource } from './signingKey.js';
import { callerCheck } from './tenants.js';
import { webhookAccounts } from './webhookAccounts.js';
import { registerWebhookRoute, WEBHOOK_PATH } from './webhookRoute.js';
import { WebhookPulses } from './webhookPulse.js';

export interface GatewayOptions {
  temporalClient: Client;
  /** The supplier account's queue set: where orders start, and which orders a look-up sees. */
  queues: TaskQueues;
  /** The default account's webhook signing key (its openId), or how to learn it. */
  openId: OpenIdSource;
  /**
   * The account's checkout settings (`checkoutSettings(config)`, as the workers'): a top-up
   * starts a terminated checkout coordinator with them.
   */
  checkout: CheckoutSettings;
  /**
   * The operator's bearer token of the order intake (GATEWAY_TOKEN): every account. Without it and
   * without store tokens in `accounts`, the intake answers 401 to everyone.
   */
  intakeToken?: string;
  /**
   * The supplier accounts (the registry, watched): which an order may name, which store intake
   * tokens act on which accounts, and whose webhooks `/webhooks/<account>` takes. Left out: the
   * default account only, and no store tokens.
   */
  accounts?: AccountDirectory;
  /** The store connections whose webhooks `/webhooks/store/<id>` takes (the registry, watched). */
  stores?: StoreDirectory;
  /** The store's margin rule for orders that name none (MARGIN_RULE). */
  marginDefault?: MarginRule | undefined;
  /** CHECKOUT_ORDER_BOUND_MS: how long a submitted order waits on its coordinator at most. */
  checkoutOrderBoundMs?: number | undefined;
  log: Logger;
  /** Deadline of a webhook's hand-off to Temporal (default 2500 ms: the supplier waits 3 s). */
  webhookDeadlineMs?: number;
  /** Deadline of the intake's Temporal calls (default 5000 ms). */
  intakeDeadlineMs?: number;
  /** Webhook body limit in bytes (default 1 MiB). */
  webhookBodyLimit?: number;
  /** Order body limit in bytes (default 256 KiB). */
  intakeBodyLimit?: number;
  /** The intake's rate limits per token and per account (default DEFAULT_INTAKE_LIMITS). */
  intakeLimits?: Partial<IntakeLimits>;
  /** Whole-request timeout (default 10 s). */
  requestTimeoutMs?: number;
  /** Serve the codec routes with the payload codec of the Temporal client (encryption on). */
  codec?: CodecServerOptions;
  /** Between two pulses of pushes to an account's sweeper (default 15 s; webhookPulse.ts). */
  webhookPulseMs?: number;
}

export interface CodecServerOptions {
  codec: PayloadCodec;
  /**
   * Origins of the Temporal UI (CODEC_CORS_ORIGIN); without a token, the only callers, and only on
   * a loopback listener.
   */
  corsOrigins?: readonly string[];
  /** Bearer token every codec call must carry (CODEC_TOKEN). Never logged. */
  token?: string;
  /** Codec body limit in bytes (default 8 MiB: a page of history's payloads). */
  bodyLimit?: number;
}

export const DEFAULT_WEBHOOK_DEADLINE_MS = 2_500;
const MiB = 1024 * 1024;

export function buildGateway(opts: GatewayOptions): FastifyInstance {
  const { temporalClient: client, queues, log } = opts;
  const webhookDeadlineMs = opts.webhookDeadlineMs ?? DEFAULT_WEBHOOK_DEADLINE_MS;
  const intakeDeadlineMs = opts.intakeDeadlineMs ?? 5_000;

  const app = Fastify({
    logger: false,
    bodyLimit: opts.intakeBodyLimit ?? MiB / 4,
    requestTimeout: opts.requestTimeoutMs ?? 10_000,
    connectionTimeout: opts.requestTimeoutMs ?? 10_000,
    keepAliveTimeout: 5_000,
    return503OnClosing: true,
  });

  answerErrorsAndCount(app, log);

  registerWebhooks(app, opts, webhookDeadlineMs);
  const caller = callerCheck(opts.intakeToken, opts.accounts);
  registerIntakeRoutes(app, {
    orders: new OrderClient(client, queues, orderStartOptions(opts)),
    caller,
    withinDeadline: (fn) => withinDeadline(client, intakeDeadlineMs, fn),
    bodyLimit: opts.intakeBodyLimit ?? MiB / 4,
    limits: { ...DEFAULT_INTAKE_LIMITS, ...opts.intakeLimits },
    log,
  });
  if (opts.stores !== undefined) {
    registerStoreRoutes(app, {
      stores: opts.stores,
      orders: new OrderClient(client, queues, orderStartOptions(opts)),
      // Shopify waits 5 s for the answer.
      withinDeadline: (fn) => withinDeadline(client, 4_000, fn),
      bodyLimit: opts.webhookBodyLimit ?? MiB,
      log,
    });
  }
  registerHealthRoutes(app, { client, deadlineMs: 1_500, log });
  if (opts.codec !== undefined) {
    registerCodecRoutes(app, {
      codec: opts.codec.codec,
      origins: opts.codec.corsOrigins ?? [],
      authorized: opts.codec.token === undefined ? undefined : bearerCheck(opts.codec.token),
      // An intake token is known, but not for the codec: 403 rather than 401.
      otherToken: (authorization) => caller(authorization) !== undefined,
      bodyLimit: opts.codec.bodyLimit ?? 8 * MiB,
      log,
    });
  }
  return app;
}

/** Errors answered without their internals; every answer logged at debug and counted. */
/** How the gateway's intakes start orders: the accounts, the margin default, the checkout bound. */
function orderStartOptions(opts: GatewayOptions): OrderClientOptions {
  return {
    ...(opts.accounts !== undefined && { accounts: opts.accounts }),
    marginDefault: opts.marginDefault,
    checkoutBoundMs: checkoutOrderBoundMs(opts.checkout, opts.checkoutOrderBoundMs),
  };
}

function answerErrorsAndCount(app: FastifyInstance, log: Logger): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const status = err.statusCode ?? 500;
    if (status >= 500) {
      log.error({ err, method: req.method, url: req.url }, 'gateway: request failed');
      return reply.code(status).send({ error: 'internal error' });
    }
    if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err instanceof SyntaxError) {
      return reply.code(400).send({ errors: [{ field: '(body)', rule: 'must be JSON' }] });
    }
    // Fastify's own client errors (413 body too large, 415 media type, …): its message is safe.
    return reply.code(status).send({ error: err.message });
  });
  app.setNotFoundHandler((_req, reply) => reply.code(404).send({ error: 'not found' }));
  app.addHook('onResponse', (req, reply, done) => {
    log.debug(
      { method: req.method, url: req.url, status: reply.statusCode, ms: reply.elapsedTime },
      'gateway request',
    );
    countResponse(req, reply);
    done();
  });
}

/** The supplier's pushes, per account, handed to Temporal within `deadlineMs`. */
function registerWebhooks(app: FastifyInstance, opts: GatewayOptions, deadlineMs: number): void {
  const { temporalClient: client, queues, log } = opts;
  const webhookAccountOf = webhookAccounts({
    client,
    queues,
    checkout: opts.checkout,
    defaultOpenId: opts.openId,
    ...(opts.accounts !== undefined && { accounts: opts.accounts }),
  });
  const pulses = new WebhookPulses({
    client,
    queues,
    log,
    ...(opts.webhookPulseMs !== undefined && { everyMs: opts.webhookPulseMs }),
  });
  app.addHook('onClose', (_app, done) => {
    pulses.close();
    done();
  });
  registerWebhookRoute(app, {
    targetOf: (id) => {
      const account = webhookAccountOf(id);
      if (account === undefined) return undefined;
      return {
        signingKey: account.signingKey,
        handOff: (message, receivedAt, ms) =>
          withinDeadline(client, ms, () => account.handoff.handOff(message, receivedAt)),
      };
    },
    deadlineMs,
    bodyLimit: opts.webhookBodyLimit ?? MiB,
    log,
    onAnswered: pulses.record,
  });
}

/**
 * Whether the codec routes may be served where the gateway listens. They hand out customers'
 * personal data in clear: with CODEC_TOKEN to whoever holds it; without one only on a loopback
 * address (the local UI of `dropflow dev`), since an Origin header is whatever the caller writes.
 */
export function codecRoutesAllowed(codec: CodecServerOptions, host: string): boolean {
  return codec.token !== undefined || isLoopbackHost(host);
}

export interface StartGatewayOptions extends GatewayOptions {
  /** Default 8080; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface StartedGateway {
  /** `http://host:port` */
  url: string;
  /** Where the supplier should push: `<url>/webhooks/supplier`. */
  webhookUrl: string;
  /**
   * The Temporal UI's codec endpoint, `<url>/codec`, when the codec routes are served (not on a
   * non-loopback address without a token: see codecRoutesAllowed).
   */
  codecUrl: string | undefined;
  app: FastifyInstance;
  close(): Promise<void>;
}

export async function startGateway(opts: StartGatewayOptions): Promise<StartedGateway> {
  const { port = 8080, host = '127.0.0.1' } = opts;
  // One memoized key for the routes and the warm-up below.
  const openId = typeof opts.openId === 'function' ? signingKey(opts.openId) : opts.openId;
  const codec =
    opts.codec !== undefined && codecRoutesAllowed(opts.codec, host) ? opts.codec : undefined;
  const app = buildGateway({ ...opts, openId, codec });
  await app.listen({ port, host });
  const address = app.server.address();
  const boundPort = typeof address === 'object' && address !== null ? address.port : port;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${boundPort}`;
  if (opts.intakeToken === undefined) {
    opts.log.warn(
      "gateway: no GATEWAY_TOKEN set; the order intake takes only the registry's store intake tokens (401 otherwise)",
    );
  }
  // Learn the signing key now rather than on the first push (a token call may take a while).
  if (typeof openId === 'function') {
    void openId().catch((err: unknown) => {
      opts.log.warn({ err }, 'gateway: the signing key (openId) is not available yet');
    });
  }
  if (opts.codec !== undefined && codec === undefined) {
    opts.log.warn(
      { host },
      'gateway: codec routes not served: without CODEC_TOKEN they are served on a loopback address only',
    );
  } else if (codec !== undefined && codec.token === undefined && !codec.corsOrigins?.length) {
    opts.log.warn(
      'gateway: neither CODEC_TOKEN nor CODEC_CORS_ORIGIN set; the codec routes refuse every call',
    );
  }
  opts.log.info({ url }, 'gateway listening');
  let closing: Promise<void> | undefined;
  return {
    url,
    webhookUrl: `${url}${WEBHOOK_PATH}`,
    codecUrl: codec === undefined ? undefined : `${url}${CODEC_PATH}`,
    app,
    close() {
      closing ??= app.close();
      return closing;
    },
  };
}
