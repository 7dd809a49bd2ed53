/**
 * Serves supplier endpoints from their definitions in src/supplier/api: the same schemas the
 * client checks before sending are the ones the sandbox enforces (1600100 naming the field).
 * Around every handler: stats, injected faults, authentication, the per-account rate limit and the
 * response envelope.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import {
  API_PREFIX,
  type Endpoint,
  type RateClass,
  formatIssues,
  SupplierCode,
  type FilePart,
  toFieldIssues,
} from 'dropflow/supplier';
import type { Sandbox } from './sandbox.js';
import type { SandboxAccount } from './state.js';

/** The token endpoints' rate class: a limit of their own, outside the account's tier. */
const TOKEN_RATE: RateClass = 'token';

/** A supplier error answer; handlers throw it. */
export class SandboxError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly httpStatus = 200,
  ) {
    super(message);
  }
}

export function paramError(field: string, rule: string): SandboxError {
  return new SandboxError(SupplierCode.ParamError, `Param error: ${field}: ${rule}`);
}

type Input<E extends Endpoint> = z.output<E['request']>;
export type Handler<E extends Endpoint> = (
  input: Input<E>,
  account: SandboxAccount,
  sandbox: Sandbox,
) => unknown;
export type PublicHandler<E extends Endpoint> = (
  input: Input<E>,
  sandbox: Sandbox,
  request: FastifyRequest,
) => unknown;

/**
 * When each request came (real time, as the rate limit counts; the sandbox's clock may be moved):
 * the supplier's gateway counts a call as it arrives, not once a busy server has parsed it behind
 * other work.
 */
const arrivals = new WeakMap<FastifyRequest['raw'], number>();

export class SandboxRouter {
  constructor(
    readonly app: FastifyInstance,
    readonly sandbox: Sandbox,
  ) {
    app.addHook('onRequest', (req, _reply, done) => {
      arrivals.set(req.raw, Date.now());
      done();
    });
  }

  /** An endpoint that needs the Service-Access-Token header. */
  serve<E extends Endpoint>(ep: E, handler: Handler<E>): void {
    this.route(ep, (req) => {
      const token = req.headers['service-access-token'];
      const account =
        typeof token === 'string' ? this.sandbox.accountByAccessToken(token) : undefined;
      if (!account)
        throw new SandboxError(SupplierCode.AuthenticationFailed, 'Authentication failed');
      return { openId: account.openId, run: (input) => handler(input, account, this.sandbox) };
    });
  }

  /**
   * An endpoint without a token (the token endpoints). `accountOf` names the account whose rate
   * limit the call spends, from the raw body.
   */
  servePublic<E extends Endpoint>(
    ep: E,
    accountOf: (body: Record<string, unknown>) => SandboxAccount | undefined,
    handler: PublicHandler<E>,
  ): void {
    this.route(ep, (req) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      return {
        openId: accountOf(body)?.openId,
        run: (input) => handler(input, this.sandbox, req),
      };
    });
  }

  private route<E extends Endpoint>(
    ep: E,
    resolve: (req: FastifyRequest) => {
      openId: string | undefined;
      run: (input: Input<E>) => unknown;
    },
  ): void {
    this.app.route({
      method: ep.method,
      url: API_PREFIX + ep.path,
      handler: async (req, reply) => {
        const answer = await this.answer(ep, req, resolve);
        if (answer === 'drop') {
          reply.hijack();
          req.raw.socket.destroy();
          return;
        }
        await reply.code(answer.status).type(answer.type).send(answer.body);
      },
    });
  }

  /** What the supplier answers to one call, or `drop` for a connection closed without answer. */
  private async answer<E extends Endpoint>(
    ep: E,
    req: FastifyRequest,
    resolve: (req: FastifyRequest) => {
      openId: string | undefined;
      run: (input: Input<E>) => unknown;
    },
  ): Promise<Answer | 'drop'> {
    const sb = this.sandbox;
    const requestId = randomUUID().replace(/-/g, '');
    const arrivedAt = arrivals.get(req.raw) ?? Date.now();
    try {
      const call = resolve(req);
      const openId = call.openId;
      sb.count(openId, (s) => {
        s.calls[ep.path] = (s.calls[ep.path] ?? 0) + 1;
      });
      if (openId !== undefined && ep.rate !== TOKEN_RATE)
        sb.countRequestRate(openId, ep.path, sb.now() - (Date.now() - arrivedAt));

      const fault = sb.faults.take(ep.path, openId, sb.now());
      if (fault) sb.count(openId, (s) => (s.faultsInjected += 1));
      if (fault?.kind === 'latency') await sleep(fault.latencyMs);
      if (fault?.kind === 'reset') return 'drop';
      if (fault?.kind === 'http5xx') {
        return { status: fault.status, type: 'text/html', body: '<html>Bad Gateway</html>' };
      }
      if (fault?.kind === 'busy') {
        throw new SandboxError(SupplierCode.SystemBusy, 'System busy, please retry later');
      }
      if (fault?.kind === 'keyRefused') {
        throw new SandboxError(SupplierCode.UserNotFound, 'User not find');
      }
      if (fault?.kind === 'quota') {
        throw new SandboxError(
          SupplierCode.QuotaUsedUp,
          'Daily quota used up, it resets at 00:00 UTC',
        );
      }
      if (fault?.kind === 'rateLimit' || !sb.limiter.allow(openId ?? req.ip, ep.rate, arrivedAt)) {
        // A lost answer after the act is for a call that acts: the next one takes it.
        if (fault?.kind === 'commitThenDrop') {
          sb.faults.putBack(fault);
          sb.count(openId, (s) => (s.faultsInjected -= 1));
        }
        sb.count(openId, (s) => {
          s.rateLimited += 1;
          const byPath = (s.rateLimitedCalls ??= {});
          byPath[ep.path] = (byPath[ep.path] ?? 0) + 1;
        });
        throw new SandboxError(
          SupplierCode.TooManyRequests,
          'Too Many Requests, the request frequency exceeds the limit of the account',
        );
      }

      const parsed = ep.request.safeParse(await rawInput(ep, req));
      if (!parsed.success) {
        throw new SandboxError(
          SupplierCode.ParamError,
          `Param error: ${formatIssues(toFieldIssues(parsed.error))}`,
        );
      }
      const data = await call.run(parsed.data as Input<E>);
      sb.changed();
      if (fault?.kind === 'commitThenDrop') return 'drop';
      const body = {
        code: SupplierCode.Success,
        result: true,
        success: true,
        message: 'Success',
        data,
        requestId,
      };
      return { status: 200, type: 'application/json', body };
    } catch (err) {
      if (!(err instanceof SandboxError)) throw err;
      const body = {
        code: err.code,
        result: false,
        success: false,
        message: err.message,
        data: null,
        requestId,
      };
      return { status: err.httpStatus, type: 'application/json', body };
    }
  }
}

interface Answer {
  status: number;
  type: string;
  body: unknown;
}

async function rawInput(ep: Endpoint, req: FastifyRequest): Promise<unknown> {
  switch (ep.transport) {
    case 'json':
      return req.body ?? {};
    case 'query':
      return req.query ?? {};
    case 'none':
      return {};
    case 'multipart':
      return multipartFields(req);
  }
}

/** Reads a multipart body (kept as a buffer by the server) into fields and file parts. */
async function multipartFields(req: FastifyRequest): Promise<Record<string, unknown>> {
  if (!Buffer.isBuffer(req.body)) return {};
  // The whole body is already buffered under the server's body limit, so the Fetch parser's
  // buffering (the reason for its deprecation on servers) costs nothing more here.
  const response = new Response(req.body, {
    headers: { 'content-type': String(req.headers['content-type']) },
  });
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const form = await response.formData();
  const out: Record<string, unknown> = {};
  for (const [key, value] of form.entries()) {
    if (typeof value === 'string') {
      out[key] = value;
    } else {
      const file: FilePart = {
        filename: value.name,
        contentType: value.type,
        data: new Uint8Array(await value.arrayBuffer()),
      };
      out[key] = file;
    }
  }
  return out;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
