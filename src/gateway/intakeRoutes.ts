/**
 * Order intake for upstream systems that are not Node, behind a bearer token:
 *
 * - `POST /v1/orders`: the createOrderV3 body plus `fulfillment` (docs/gateway.md) starts
 *   `fulfillOrder` through OrderClient.submit, once per orderNumber: 201 started, 200 the same
 *   order was already there, 409 the orderNumber belongs to a different order, 400
 *   `{errors: [{field, rule}]}`.
 * - `GET /v1/orders/:orderNumber`: the order's status snapshot; 404 when there is no such order.
 * - `PATCH /v1/orders/:orderNumber`: `amend` with the body's fields (a partial createOrderV3 body),
 *   while the supplier does not have the order yet: 200 with the Update's answer, 400
 *   `{errors: [{field, rule}]}`, 404 no such order, 409 refused (`message` says why).
 *
 * Temporal calls run under a deadline; no answer in time → 503 (the caller may retry: a submit is
 * idempotent). Bodies are never logged (they hold personal data).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import {
  OrderActionRejectedError,
  OrderConflictError,
  OrderInvalidError,
  type OrderClient,
} from '../client/orderClient.js';
import { OrderNotFoundError, type AmendInput } from '../order/contract.js';
import type { Logger } from '../log.js';
import type { BearerCheck } from './bearer.js';
import { DeadlineExceeded } from './deadline.js';
import { spanOrderNumber, withRequestSpan } from './requestSpan.js';

export interface IntakeRouteOptions {
  orders: OrderClient;
  authorized: BearerCheck;
  /** Runs the Temporal calls of one request under the intake's deadline. */
  withinDeadline: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Bytes; larger bodies are refused with 413. */
  bodyLimit: number;
  log: Logger;
}

/** orderNumber: at most 50 characters (it names the order's workflow id). */
const ORDER_NUMBER_MAX = 50;

export function registerIntakeRoutes(app: FastifyInstance, opts: IntakeRouteOptions): void {
  const { orders, log } = opts;

  // onRequest: before the body is read, so a caller without the token learns nothing from it.
  const requireToken = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!opts.authorized(req.headers.authorization)) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer')
        .send({ error: 'a valid bearer token is required' });
    }
  };

  const unavailable = (reply: FastifyReply, err: unknown, what: string) => {
    if (err instanceof DeadlineExceeded) log.warn({ ms: err.ms }, `intake: ${what} timed out`);
    else log.error({ err }, `intake: ${what} failed`);
    return reply.code(503).send({ error: 'Temporal is not available; retry' });
  };

  const submit = async (req: FastifyRequest, reply: FastifyReply) => {
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
      return unavailable(reply, err, 'submit');
    }
  };

  app.post('/v1/orders', { bodyLimit: opts.bodyLimit, onRequest: requireToken }, (req, reply) =>
    withRequestSpan('/v1/orders', req, reply, () => submit(req, reply)),
  );

  const badOrderNumber = (reply: FastifyReply, orderNumber: string) => {
    if (orderNumber !== '' && orderNumber.length <= ORDER_NUMBER_MAX) return undefined;
    return reply.code(400).send({
      errors: [{ field: 'orderNumber', rule: `must be 1 to ${ORDER_NUMBER_MAX} characters long` }],
    });
  };

  app.get<{ Params: { orderNumber: string } }>(
    '/v1/orders/:orderNumber',
    { onRequest: requireToken },
    async (req, reply) => {
      const { orderNumber } = req.params;
      const bad = badOrderNumber(reply, orderNumber);
      if (bad !== undefined) return bad;
      try {
        return await opts.withinDeadline(() => orders.status(orderNumber));
      } catch (err) {
        if (err instanceof OrderNotFoundError) {
          return reply.code(404).send({ error: `no order ${orderNumber}` });
        }
        return unavailable(reply, err, 'status');
      }
    },
  );

  app.patch<{ Params: { orderNumber: string } }>(
    '/v1/orders/:orderNumber',
    { bodyLimit: opts.bodyLimit, onRequest: requireToken },
    async (req, reply) => {
      const { orderNumber } = req.params;
      const bad = badOrderNumber(reply, orderNumber);
      if (bad !== undefined) return bad;
      try {
        const result = await opts.withinDeadline(() =>
          orders.amend(orderNumber, { order: req.body as AmendInput['order'] }),
        );
        log.info({ orderNumber, accepted: result.accepted }, 'intake: amend answered');
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
        return unavailable(reply, err, 'amend');
      }
    },
  );
}
