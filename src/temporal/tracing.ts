/**
 * Traces across the fleet (docs/tracing.md): the OpenTelemetry Node SDK of one process and the
 * Temporal interceptors that carry an order's trace from its intake through its workflow, its
 * activities and each supplier request.
 *
 * On only when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
 * OTEL_EXPORTER_OTLP_ENDPOINT, spans sent over OTLP/HTTP) or an exporter is given (tests); off, no
 * SDK starts, no interceptor is installed and no interceptor module is bundled: every helper
 * below returns nothing to add. One SDK per process, like the global tracer it registers.
 *
 * No personal data: spans carry ids, names of operations, codes and the account, never a body,
 * a header or a workflow's memo (see `workflowInfoForSpans`), nor what an error said
 * (RedactingSpanProcessor).
 */
import { fileURLToPath } from 'node:url';

import { context, propagation, trace } from '@opentelemetry/api';
import type { ClientInterceptors } from '@temporalio/client';
import type { Context as ActivityContext, Info as ActivityInfo } from '@temporalio/activity';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { envDetectorSync, Resource } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import {
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type {
  ActivityInboundCallsInterceptor,
  BundleOptions,
  WorkerOptions,
  WorkflowBundleOption,
} from '@temporalio/worker';
import type { WorkflowInfo } from '@temporalio/workflow';

import pkg from '../../package.json' with { type: 'json' };
import { SpanAttribute } from '../supplier/spanAttributes.js';
import { withSupplierAccount } from '../supplier/spans.js';
import { RedactingSpanProcessor } from './redactedSpans.js';

/** The workflow interceptors module (workflow code) bundled when tracing is on. */
export const WORKFLOW_TRACE_INTERCEPTORS = fileURLToPath(
  new URL('../durable/traceInterceptors.ts', import.meta.url),
);

/** `dropflow-dev`: the workers and the gateway of `dropflow dev`, in one process. */
export type TracedService =
  'dropflow-worker' | 'dropflow-gateway' | 'dropflow-cli' | 'dropflow-dev';

export interface TracingOptions {
  service: TracedService;
  /**
   * Where spans go instead of OTLP, one by one (tests: an InMemorySpanExporter). Given, tracing
   * starts whatever the environment says.
   */
  exporter?: SpanExporter;
  env?: NodeJS.ProcessEnv;
}

export interface Tracing {
  service: TracedService;
  /** Flushes the spans still buffered and stops the SDK. */
  shutdown(): Promise<void>;
}

interface Started extends Tracing {
  processor: SpanProcessor;
  resource: Resource;
}

let started: Started | undefined;

/** The OTLP endpoint that turns tracing on, if one is configured (traces' own first). */
export function otlpTracesEndpoint(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (/^true$/i.test(env['OTEL_SDK_DISABLED']?.trim() ?? '')) return undefined;
  const endpoint =
    nonEmpty(env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) ??
    nonEmpty(env['OTEL_EXPORTER_OTLP_ENDPOINT']);
  return endpoint;
}

const nonEmpty = (value: string | undefined) =>
  value === undefined || value.trim() === '' ? undefined : value.trim();

/**
 * Starts the process's tracing when it is configured (or `exporter` is given); otherwise does
 * nothing and returns undefined. Call before any Temporal client, worker or bundle is made: they
 * take the interceptors from here. A second call returns the tracing already started.
 */
export function startTracing(opts: TracingOptions): Tracing | undefined {
  if (started !== undefined) return started;
  const env = opts.env ?? process.env;
  const exporter =
    opts.exporter ?? (otlpTracesEndpoint(env) === undefined ? undefined : new OTLPTraceExporter());
  if (exporter === undefined) return undefined;

  // Only OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES besides ours: the process and host
  // detectors would add the command line, which may name a file of orders.
  const resource = new Resource({
    ...Resource.default().attributes,
    [ATTR_SERVICE_NAME]: opts.service,
    [ATTR_SERVICE_VERSION]: pkg.version,
    ...envDetectorSync.detect().attributes,
  });
  // The workflows' spans (through the sink) and the process's own pass the same redaction.
  const processor = new RedactingSpanProcessor(
    opts.exporter !== undefined
      ? new SimpleSpanProcessor(exporter)
      : new BatchSpanProcessor(exporter),
  );
  const sdk = new NodeSDK({
    resource,
    autoDetectResources: false,
    spanProcessors: [processor],
    // Traces only: no log records, no auto-instrumentation (it would record URLs and headers).
    logRecordProcessors: [],
    instrumentations: [],
  });
  sdk.start();
  const tracing: Started = {
    service: opts.service,
    processor,
    resource,
    async shutdown() {
      if (started === tracing) started = undefined;
      await sdk.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
  started = tracing;
  return tracing;
}

/** Stops the process's tracing, if it runs, after exporting what it holds. */
export async function stopTracing(): Promise<void> {
  await started?.shutdown();
}

/** Whether this process traces. */
export function tracingOn(): boolean {
  return started !== undefined;
}

/** The client interceptors of tracing, for `new Client({..., ...tracingClientOptions()})`. */
export function tracingClientOptions(): { interceptors?: ClientInterceptors } {
  if (started === undefined) return {};
  return { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } };
}

/**
 * For `bundleWorkflowCode`: the workflow interceptors module, when tracing is on (`on`: in this
 * process, or, for a bundle made before the worker starts, where OTLP is configured).
 */
export function tracingBundleOptions(
  on = started !== undefined,
): Pick<BundleOptions, 'workflowInterceptorModules'> {
  if (!on) return {};
  return { workflowInterceptorModules: [WORKFLOW_TRACE_INTERCEPTORS] };
}

/**
 * The worker options of tracing: the activity interceptors (RunActivity spans, and the account of
 * the supplier requests an activity makes) and the sink that exports the workflows' spans. The
 * workflow interceptors module too when the worker bundles its code itself; a prebuilt
 * `workflowBundle` must have been built with `tracingBundleOptions()`.
 */
export function tracingWorkerOptions(
  accountOf: (info: ActivityInfo) => string,
  workflowBundle?: WorkflowBundleOption,
): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  if (started === undefined) return {};
  const workflowExporter = makeWorkflowExporter(started.processor, started.resource);
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
        (ctx) => ({ inbound: new AccountOfActivity(ctx, accountOf) }),
      ],
      ...(workflowBundle === undefined && { workflowModules: [WORKFLOW_TRACE_INTERCEPTORS] }),
    },
    sinks: {
      exporter: {
        export: {
          fn: (info: WorkflowInfo, spans: Parameters<typeof workflowExporter.export.fn>[1]) =>
            workflowExporter.export.fn(workflowInfoForSpans(info), spans),
        },
      },
    },
  };
}

/**
 * For a replay of a bundle built with `tracingBundleOptions()`: its workflow spans have a sink to
 * go to (a replay exports nothing; without it the worker logs every span as an error).
 */
export const REPLAY_TRACE_SINKS: NonNullable<WorkerOptions['sinks']> = {
  exporter: { export: { fn: () => undefined } },
};

/** The replay worker options of tracing, when it is on (src/replayCheck.ts). */
export function tracingReplayOptions(): Pick<WorkerOptions, 'sinks'> {
  return started === undefined ? {} : { sinks: REPLAY_TRACE_SINKS };
}

/**
 * What of a workflow's info its spans carry: the Temporal sink copies every field it is given
 * onto each span, and the whole info holds the memo and search attributes.
 */
function workflowInfoForSpans(info: WorkflowInfo): WorkflowInfo {
  const { workflowId, runId, workflowType, taskQueue, namespace } = info;
  return { workflowId, runId, workflowType, taskQueue, namespace } as WorkflowInfo;
}

/**
 * The account of an activity, on its RunActivity span and on the supplier requests it makes, as
 * `accountOf` reads it from the task (accounts/activityAccount.ts).
 */
class AccountOfActivity implements ActivityInboundCallsInterceptor {
  constructor(
    private readonly ctx: ActivityContext,
    private readonly accountOf: (info: ActivityInfo) => string,
  ) {}

  execute: ActivityInboundCallsInterceptor['execute'] = (input, next) => {
    const account = this.accountOf(this.ctx.info);
    trace.getActiveSpan()?.setAttribute(SpanAttribute.account, account);
    return withSupplierAccount(account, () => next(input));
  };
}
