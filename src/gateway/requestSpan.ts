/**
 * The trace span of an intake request (docs/tracing.md): it continues the caller's trace when the
 * request carries a W3C `traceparent` header (a store that traces its own checkout), else starts
 * one; the order's workflow start is its child. Method, route and status only: never the body, a
 * header or the query. A no-op span while tracing is off.
 */
import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { FastifyReply, FastifyRequest } from 'fastify';

import { SpanAttribute } from '../supplier/spanAttributes.js';

export function withRequestSpan<T>(
  route: string,
  req: FastifyRequest,
  reply: FastifyReply,
  fn: () => Promise<T>,
): Promise<T> {
  const parent = propagation.extract(ROOT_CONTEXT, req.headers);
  const attributes = { [SpanAttribute.httpMethod]: req.method, [SpanAttribute.httpRoute]: route };
  return trace
    .getTracer('dropflow.gateway')
    .startActiveSpan(
      `${req.method} ${route}`,
      { kind: SpanKind.SERVER, attributes },
      parent,
      async (span) => {
        try {
          return await fn();
        } finally {
          span.setAttribute(SpanAttribute.httpStatus, reply.statusCode);
          if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        }
      },
    );
}

/** Names the order the current request is about on its span (the store's order reference). */
export function spanOrderNumber(orderNumber: string): void {
  trace.getActiveSpan()?.setAttribute(SpanAttribute.orderNumber, orderNumber);
}
