/**
 * Rate limits of the order intake (docs/configuration.md, "Intake limits"), counted with
 * `@fastify/rate-limit`'s store: per store token (each bearer token, by its SHA-256: one leaked or
 * runaway client cannot flood the intake), and per supplier account (however many tokens act on
 * it, one account's orders cannot crowd out the others'). A request over either answers 429 with
 * `Retry-After` (seconds) before anything reaches Temporal. Counts live in the gateway process:
 * N gateways behind a load balancer let through up to N times the limit.
 */
import { createHash } from 'node:crypto';

import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface IntakeLimits {
  /** Requests one bearer token may make to the intake routes per window. */
  perToken: number;
  /** Requests that may address one account's orders per window, across every token. */
  perAccount: number;
  windowMs: number;
}

export const DEFAULT_INTAKE_LIMITS: IntakeLimits = {
  perToken: 600,
  perAccount: 1_200,
  windowMs: 60_000,
};

type Hook = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

export interface IntakeLimiters {
  /** An onRequest hook, after the token check: counts the request against its bearer token. */
  perToken: Hook;
  /**
   * A preHandler hook (the body is read): counts it against the account it addresses, when the
   * caller may act on that account (another's is refused with 403 and spends nothing of it).
   */
  perAccount: Hook;
}

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

/**
 * Registers the plugin in `scope` (no global limit) and returns its two checks; `accountOf` names
 * the account a request addresses, or nothing when it is not the caller's to spend.
 */
export async function intakeLimiters(
  scope: FastifyInstance,
  limits: IntakeLimits,
  accountOf: (req: FastifyRequest) => string | undefined,
): Promise<IntakeLimiters> {
  await scope.register(rateLimit, { global: false });
  const check = (what: string, max: number, key: (req: FastifyRequest) => string): Hook => {
    const limiter = scope.createRateLimit({ max, timeWindow: limits.windowMs, keyGenerator: key });
    return async (req, reply) => {
      const limit = await limiter(req);
      if (limit.isAllowed || !limit.isExceeded) return undefined;
      const seconds = Math.max(1, limit.ttlInSeconds);
      return reply
        .code(429)
        .header('retry-after', String(seconds))
        .send({
          error: 'too many requests',
          message: `at most ${max} intake requests per ${limits.windowMs / 1000} s ${what}; retry in ${seconds} s`,
        });
    };
  };
  const perAccount = check('per account', limits.perAccount, (req) => `account:${accountOf(req)}`);
  return {
    perToken: check('per token', limits.perToken, (req) => {
      const token = BEARER.exec(req.headers.authorization ?? '')?.[1] ?? '';
      return `token:${createHash('sha256').update(token, 'utf8').digest('hex')}`;
    }),
    perAccount: async (req, reply) =>
      accountOf(req) === undefined ? undefined : perAccount(req, reply),
  };
}
