/**
 * The last guard of personal data in traces (docs/tracing.md): a span processor that passes spans
 * on without what an error said. The Temporal interceptors record a failed activity's or
 * workflow's error on its span (its message as the status, an `exception` event with message and
 * stack), and a failure's message may echo what the supplier was sent — which is why failures are
 * encrypted in Temporal (docs/operations.md#personal-data). What is left: that it failed, and the
 * error's type.
 */
import type { Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor, TimedEvent } from '@opentelemetry/sdk-trace-base';

const EXCEPTION_TYPE = 'exception.type';

export class RedactingSpanProcessor implements SpanProcessor {
  constructor(private readonly next: SpanProcessor) {}

  onStart(span: Span, parentContext: Context): void {
    this.next.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    this.next.onEnd(redacted(span));
  }

  forceFlush(): Promise<void> {
    return this.next.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.next.shutdown();
  }
}

/** The span as it is, but for its status message and its exception events' message and stack. */
export function redacted(span: ReadableSpan): ReadableSpan {
  const events = span.events.map(withoutMessage);
  const { message: _message, ...status } = span.status;
  // A view of the span: its methods (spanContext()) and other fields read through to it.
  return Object.create(span, {
    status: { value: status, enumerable: true },
    events: { value: events, enumerable: true },
  }) as ReadableSpan;
}

function withoutMessage(event: TimedEvent): TimedEvent {
  if (event.name !== 'exception') return event;
  const type = event.attributes?.[EXCEPTION_TYPE];
  return { ...event, attributes: type === undefined ? {} : { [EXCEPTION_TYPE]: type } };
}
