/**
 * Order intake for upstream systems that are not Node, behind a bearer token:
 *
 * - `POST /v1/orders`: the createOrderV3 body plus `fulfillment` (docs/gateway.md) starts
 *   `fulfillOrder` through OrderClient.submit, once per orderNumber: 201 started, 200 the same
 *   order was already there, 409 the orderNumber belongs to a different order, 400
 *   `{errors: [{field, rule}]}` (also for a `store` field: that one is a store connection's).
 * - `GET /v1/orders/:orderNumber`: the order's status snapshot; 404 when there is no such order.
 * - `PATCH /v1/orders/:orderNumber`: `amend` with the body's fields (a partial createOrderV3 body),
 *   while the supplier does not have the order yet: 200 with the Update's answer, 400
 *   `{errors: [{field, rule}]}`, 404 no such order, 409 refused (`message` says why).
 *
 * Tenants (docs/accounts.md): GATEWAY_TOKEN acts on every account; a store's intake token on its
 * accounts only. An order names its account (`account` in the body; on the by-number routes the
 * `account` query parameter, or the token's one account, or `default`); a token acting on another
 * account's order gets 403 before anything is read or changed, and the order's run must carry that
 * account (its SupplierAccount), not just an id that looks like it.
 *
 * Limits (intakeLimits.ts): requests per window per bearer token and per account; beyond, 429
 * with `Retry-After`, before anything reaches Temporal.
 *
 * Temporal calls run under a deadline; no answer in time → 503 (the caller may retry: a submit is
 * idempotent). Bodies are never logged (they hold personal data).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import { ACCOUNT_ID_RULE, DEFAULT_ACCOUNT, isAccountId } from '../accounts/contract.js';

import {
  OrderActionRejectedError,
  OrderConflictError,
  OrderInvalidError,
  type OrderClient,
} from '../client/orderClient.js';
import { OrderNotFoundError, type AmendInput } from '../order/contract.js';
import type { Logger } from '../telemetry/log.js';
import { DeadlineExceeded } from './deadline.js';
import { intakeLimiters, type IntakeLimiters, type IntakeLimits } from './intakeLimits.js';
import { spanOrderNumber, withRequestSpan } from './requestSpan.js';
import { forbidden, mayActOn, type Caller, type CallerCheck } from './tenants.js';

export interface IntakeRouteOptions {
  orders: OrderClient;
  /** Who a request's token is: the operator, a store of some accounts, or nobody (401). */
  caller: CallerCheck;
  /** Runs the Temporal calls of one request under the intake's deadline. */
  withinDeadline: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Bytes; larger bodies are refused with 413. */
  bodyLimit: number;
  /** Requests per window, per token and per account (429 with Retry-After beyond). */
  limits: IntakeLimits;
  log: Logger;
}

const STORE_FIELD_RULE =
  'is set only by a store connection (its webhooks and sweeps), never by the intake';

/** orderNumber: at most 50 characters (it names the order's workflow id). */
const ORDER_NUMBER_MAX = 50;

export function registerIntakeRoutes(app: FastifyInstance, opts: IntakeRouteOptions): void {
  // A scope of its own: the rate-limit plugin counts these routes only.
  void app.register(async (scope) => {
    const limiters = await intakeLimiters(scope, opts.limits, (req) => {
      const caller = opts.caller(req.headers.authorization);
      const account = addressedAccount(req, caller);
      // Another tenant's account is answered 403 and spends nothing of its limit.
      return caller !== undefined && mayActOn(caller, account) ? account : undefined;
    });
    intakeRoutes(scope, opts, limiters);
  });
}

/**
 * The account a request addresses: the body's `account` (a submit), else the `account` query
 * parameter, else the token's one account, else `default`. Malformed values are the route's to
 * refuse; they are counted as they are.
 */
function addressedAccount(req: FastifyRequest, caller: Caller | undefined): string {
  const named =
    req.method === 'POST'
      ? (req.body as { account?: unknown } | null)?.account
      : (req.query as { account?: unknown } | null)?.account;
  if (named !== undefined) return typeof named === 'string' ? named : '(malformed)';
  if (req.method !== 'POST' && caller?.operator === false && caller.accounts.size === 1) {
    return [...caller.accounts][0]!;
  }
  return DEFAULT_ACCOUNT;
}

type ByNumber = FastifyRequest<{
  Params: { orderNumber: string };
  Querystring: { account?: string };
}>;

/** What every route handler of the intake reads. */
interface Intake {
  opts: IntakeRouteOptions;
  /**
   * Counted once the token is known good, before the body is read (per token) and after (per
   * account): a stranger's requests count against nobody.
   */
  guarded: { onRequest: IntakeLimiters['perToken'][]; preHandler: IntakeLimiters['perAccount'] };
}

function intakeRoutes(app: FastifyInstance, opts: IntakeRouteOptions, limits: IntakeLimiters) {
  const intake: Intake = {
    opts,
    guarded: { onRequest: [requireToken(opts), limits.perToken], preHandler: limits.perAccount },
  };
  submitRoute(app, intake);
  statusRoute(app, intake);
  amendRoute(app, intake);
}

/** onRequest: before the body is read, so a caller without the token learns nothing from it. */
function requireToken(opts: IntakeRouteOptions) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    if (opts.caller(req.headers.authorization) === undefined) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .send({ error: 'a valid bearer token is required' });
    }
    return undefined;
  };
}

function unavailable(log: Logger, reply: FastifyReply, err: unknown, what: string) {
  if (err instanceof DeadlineExceeded) log.warn({ ms: err.ms }, `intake: ${what} timed out`);
  else log.error({ err }, `intake: ${what} failed`);
  return reply.code(503).send({ error: 'Temporal is not available; retry' });
}

function callerOf(opts: IntakeRouteOptions, req: FastifyRequest): Caller {
  return opts.caller(req.headers.authorization)!;
}

/** `POST /v1/orders`. */
function submitRoute(app: FastifyInstance, { opts, guarded }: Intake): void {
  const { orders, log } = opts;
  const submit = async (req: FastifyRequest, reply: FastifyReply) => {
    const caller = callerOf(opts, req);
    const named = (req.body as { account?: unknown } | null)?.account;
    const account = named === undefined ? DEFAULT_ACCOUNT : named;
    // A malformed account is the submit's to refuse (400); a well-formed one must be the caller's.
    if (typeof account === 'string' && isAccountId(account) && !mayActOn(caller, account)) {
      return reply.code(403).send(forbidden(caller, account));
    }
    // It names the store order whose fulfillments the order writes: only a connection may say it.
    if (typeof req.body === 'object' && req.body !== null && 'store' in req.body) {
      return reply.code(400).send({ errors: [{ field: 'store', rule: STORE_FIELD_RULE }] });
    }
    try {
      const result = await opts.withinDeadline(() => orders.submit(req.body));
      spanOrderNumber(result.orderNumber);
      log.info(
        { orderNumber: result.orderNumber, outcome: result.outcome },
        'intake: order submitted',
      );
      return await reply.code(result.outcome === 'started' ? 201 : 200).send(result);
    } catch (err) {
      if (err instanceof OrderInvalidError) return reply.code(400).send({ errors: err.issues });
      if (err instanceof OrderConflictError) {
        return reply.code(409).send({
          error: 'conflict',
          message: err.message,
          orderNumber: err.orderNumber,
          workflowId: err.workflowId,
        });
      }
      return unavailable(log, reply, err, 'submit');
    }
  };
  app.post('/v1/orders', { bodyLimit: opts.bodyLimit, ...guarded }, (req, reply) =>
    withRequestSpan('/v1/orders', req, reply, () => submit(req, reply)),
  );
}

/**
 * The account a by-number request addresses, once the caller may act on it and the order's run
 * belongs to it; otherwise the reply (400, 403, 404) has been sent.
 */
async function orderOf(
  opts: IntakeRouteOptions,
  req: ByNumber,
  reply: FastifyReply,
): Promise<OrderClient | undefined> {
  const { orderNumber } = req.params;
  if (orderNumber === '' || orderNumber.length > ORDER_NUMBER_MAX) {
    await reply.code(400).send({
      errors: [{ field: 'orderNumber', rule: `must be 1 to ${ORDER_NUMBER_MAX} characters long` }],
    });
    return undefined;
  }
  const caller = callerOf(opts, req);
  const asked = req.query.account;
  if (asked !== undefined && !isAccountId(asked)) {
    await reply.code(400).send({ errors: [{ field: 'account', rule: ACCOUNT_ID_RULE }] });
    return undefined;
  }
  const account = addressedAccount(req, caller);
  if (!mayActOn(caller, account)) {
    await reply.code(403).send(forbidden(caller, account));
    return undefined;
  }
  const scoped = opts.orders.forAccount(account);
  const owner = await opts.withinDeadline(() => scoped.accountOf(orderNumber));
  if (owner !== account || !mayActOn(caller, owner)) {
    await reply.code(403).send(forbidden(caller, owner));
    return undefined;
  }
  return scoped;
}

/** `GET /v1/orders/:orderNumber`. */
function statusRoute(app: FastifyInstance, { opts, guarded }: Intake): void {
  app.get<{ Params: { orderNumber: string }; Querystring: { account?: string } }>(
    '/v1/orders/:orderNumber',
    guarded,
    async (req, reply) => {
      const { orderNumber } = req.params;
      try {
        const order = await orderOf(opts, req, reply);
        if (order === undefined) return undefined; // answered already
        return await opts.withinDeadline(() => order.status(orderNumber));
      } catch (err) {
        if (err instanceof OrderNotFoundError) {
          return reply.code(404).send({ error: `no order ${orderNumber}` });
        }
        return unavailable(opts.log, reply, err, 'status');
      }
    },
  );
}

/** `PATCH /v1/orders/:orderNumber`. */
function amendRoute(app: FastifyInstance, { opts, guarded }: Intake): void {
  app.patch<{ Params: { orderNumber: string }; Querystring: { account?: string } }>(
    '/v1/orders/:orderNumber',
    { bodyLimit: opts.bodyLimit, ...guarded },
    async (req, reply) => {
      const { orderNumber } = req.params;
      try {
        const order = await orderOf(opts, req, reply);
        if (order === undefined) return undefined; // answered already
        const result = await opts.withinDeadline(() =>
          order.amend(orderNumber, { order: req.body as AmendInput['order'] }),
        );
        opts.log.info({ orderNumber, accepted: result.accepted }, 'intake: amend answered');
        if (!result.accepted) {
          return await reply
            .code(409)
            .send({ error: 'refused', message: result.message, stage: result.stage });
        }
        return await reply.code(200).send(result);
      } catch (err) {
        if (err instanceof OrderInvalidError) return reply.code(400).send({ errors: err.issues });
        if (err instanceof OrderNotFoundError) {
          return reply.code(404).send({ error: `no order ${orderNumber}` });
        }
        if (err instanceof OrderActionRejectedError) {
          return reply.code(409).send({ error: 'refused', message: err.reason });
        }
        return unavailable(opts.log, reply, err, 'amend');
      }
    },
  );
}
