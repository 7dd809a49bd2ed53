/**
 * Trace spans of supplier requests (docs/tracing.md): one span per HTTP exchange, with what finds
 * it again (endpoint, path, the supplier's code and requestId, the HTTP status, the account) and
 * nothing of the request or the answer: bodies hold personal data, headers the access token.
 *
 * Through the OpenTelemetry API only: without a started SDK (src/temporal/tracing.ts) its tracer
 * makes no-op spans, and nothing here records anything.
 */
import {
  context,
  createContextKey,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
} from '@opentelemetry/api';

import { SupplierCode } from './errors.js';
import { SpanAttribute } from './spanAttributes.js';

const ACCOUNT = createContextKey(SpanAttribute.account);

/** Runs `fn` with `account` as the account of the supplier requests it makes. */
export function withSupplierAccount<T>(account: string, fn: () => T): T {
  return context.with(context.active().setValue(ACCOUNT, account), fn);
}

function currentAccount(): string | undefined {
  const account = context.active().getValue(ACCOUNT);
  return typeof account === 'string' ? account : undefined;
}

/** What a request span learns from the answer. */
export interface RequestOutcomeForSpan {
  status?: number;
  code?: number;
  requestId?: string;
  /** A network error's code, or `no_envelope`. */
  errorType?: string;
}

/**
 * Runs one supplier request inside its span. `fn` tells the span how the request ended through
 * `record`, the answer or the failure alike; the span ends when `fn` settles.
 */
export function supplierRequestSpan<T>(
  request: { operation: string; method: string; path: string },
  fn: (record: (outcome: RequestOutcomeForSpan) => void) => Promise<T>,
): Promise<T> {
  const account = currentAccount();
  const attributes: Attributes = {
    [SpanAttribute.supplierEndpoint]: request.operation,
    [SpanAttribute.httpMethod]: request.method,
    [SpanAttribute.urlPath]: request.path,
    ...(account !== undefined && { [SpanAttribute.account]: account }),
  };
  return trace
    .getTracer('dropflow.supplier')
    .startActiveSpan(
      `supplier ${request.operation}`,
      { kind: SpanKind.CLIENT, attributes },
      async (span) => {
        try {
          return await fn((outcome) => {
            recordOutcome(span, outcome);
          });
        } finally {
          span.end();
        }
      },
    );
}

function recordOutcome(span: Span, outcome: RequestOutcomeForSpan): void {
  if (!span.isRecording()) return;
  if (outcome.status !== undefined) span.setAttribute(SpanAttribute.httpStatus, outcome.status);
  if (outcome.code !== undefined) span.setAttribute(SpanAttribute.supplierCode, outcome.code);
  if (outcome.requestId !== undefined) {
    span.setAttribute(SpanAttribute.supplierRequestId, outcome.requestId);
  }
  if (outcome.errorType !== undefined) {
    span.setAttribute(SpanAttribute.errorType, outcome.errorType);
    span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.errorType });
  } else if (outcome.code !== undefined && outcome.code !== SupplierCode.Success) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: `supplier code ${outcome.code}` });
  }
}
