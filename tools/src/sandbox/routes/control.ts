/**
 * The /__sandbox/ controls' plumbing: the body checked against its schema (400 with the issues),
 * refusals thrown as a Refusal (an HTTP status and body), the success's status.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { Sandbox } from '../sandbox.js';
import type { SandboxAccount, SandboxOrder } from '../state.js';

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(String(body.error));
  }
}

export const refuse = (status: number, error: string, more?: Record<string, unknown>): Refusal =>
  new Refusal(status, { error, ...more });

interface ControlSpec<T> {
  body?: z.ZodType<T>;
  /** A request without a body is checked as it is, not as `{}`. */
  bare?: boolean;
  status?: number;
}

type ControlRequest = FastifyRequest<{
  Params: Record<string, string>;
  Querystring: Record<string, string | undefined>;
}>;

export function control<T = undefined>(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  spec: ControlSpec<T>,
  handler: (data: T, req: ControlRequest) => unknown,
): void {
  app.route({
    method,
    url,
    handler: (req, reply) => {
      try {
        let data = undefined as T;
        if (spec.body) {
          const p = spec.body.safeParse(spec.bare === true ? req.body : (req.body ?? {}));
          if (!p.success) {
            return reply.code(400).send({ error: 'invalid request', issues: p.error.issues });
          }
          data = p.data;
        }
        return reply.code(spec.status ?? 200).send(handler(data, req as ControlRequest));
      } catch (err) {
        if (err instanceof Refusal) return reply.code(err.status).send(err.body);
        throw err;
      }
    },
  });
}

/** The account named, or the sandbox's default one without `openId`. */
export function accountOf(sb: Sandbox, openId: string | undefined): SandboxAccount {
  const account = openId === undefined ? sb.defaultAccount() : sb.state.accounts[openId];
  if (!account) throw refuse(404, 'no such account');
  return account;
}

/** An order by its svcOrderId or svcOrderCode. */
export function orderOf(sb: Sandbox, id: string): SandboxOrder {
  const order =
    sb.state.orders[id] ?? Object.values(sb.state.orders).find((o) => o.svcOrderCode === id);
  if (!order) throw refuse(404, 'no such order');
  return order;
}
