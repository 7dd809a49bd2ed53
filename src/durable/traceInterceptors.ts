/**
 * The workflow interceptors of tracing (docs/tracing.md), bundled only when tracing is on
 * (src/temporal/tracing.ts `tracingBundleOptions`): the Temporal OpenTelemetry interceptors, which
 * continue the starter's trace in RunWorkflow and carry it on to activities, signals and child
 * workflows, plus the account and the workflow id on those spans.
 *
 * They issue no command and add no yield, so histories replay the same with tracing on or off
 * (test/replay). Span ids are drawn from a named random stream of their own: the workflow's
 * `Math.random()` and `uuid4()` (store-event ids, jitter) draw the same numbers either way.
 */
import { trace } from '@opentelemetry/api';
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import {
  getRandomStream,
  workflowInfo,
  type WorkflowInboundCallsInterceptor,
  type WorkflowInterceptorsFactory,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';

import { SpanAttribute } from '../supplier/spanAttributes.js';
import { workflowAccount } from './account.js';

const TRACING_RANDOM_STREAM = 'dropflow.tracing';

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [withOwnRandom(new OpenTelemetryInboundInterceptor()), new AccountOnSpans()],
  outbound: [withOwnRandom(new OpenTelemetryOutboundInterceptor()), new AccountOnSpans()],
  internals: [withOwnRandom(new OpenTelemetryInternalsInterceptor())],
});

/** Runs each method of `interceptor` with the tracing's own random stream. */
function withOwnRandom<T extends object>(interceptor: T): T {
  return new Proxy(interceptor, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]): unknown =>
        getRandomStream(TRACING_RANDOM_STREAM).with(() =>
          (value as (...a: unknown[]) => unknown).apply(target, args),
        );
    },
  });
}

/**
 * Puts the account and the workflow id on the span the Temporal interceptor (listed before it)
 * just opened: RunWorkflow, HandleSignal, StartActivity, SignalWorkflow, … .
 */
class AccountOnSpans
  implements
    Pick<WorkflowInboundCallsInterceptor, 'execute' | 'handleSignal' | 'handleUpdate'>,
    Pick<
      WorkflowOutboundCallsInterceptor,
      | 'scheduleActivity'
      | 'scheduleLocalActivity'
      | 'signalWorkflow'
      | 'startChildWorkflowExecution'
    >
{
  execute: WorkflowInboundCallsInterceptor['execute'] = (input, next) => tagged(input, next);
  handleSignal: WorkflowInboundCallsInterceptor['handleSignal'] = (input, next) =>
    tagged(input, next);
  handleUpdate: WorkflowInboundCallsInterceptor['handleUpdate'] = (input, next) =>
    tagged(input, next);
  scheduleActivity: WorkflowOutboundCallsInterceptor['scheduleActivity'] = (input, next) =>
    tagged(input, next);
  scheduleLocalActivity: WorkflowOutboundCallsInterceptor['scheduleLocalActivity'] = (
    input,
    next,
  ) => tagged(input, next);
  signalWorkflow: WorkflowOutboundCallsInterceptor['signalWorkflow'] = (input, next) =>
    tagged(input, next);
  startChildWorkflowExecution: WorkflowOutboundCallsInterceptor['startChildWorkflowExecution'] = (
    input,
    next,
  ) => tagged(input, next);
}

function tagged<I, R>(input: I, next: (input: I) => R): R {
  const span = trace.getActiveSpan();
  if (span?.isRecording() === true) {
    span.setAttribute(SpanAttribute.account, workflowAccount());
    span.setAttribute(SpanAttribute.workflowId, workflowInfo().workflowId);
  }
  return next(input);
}
