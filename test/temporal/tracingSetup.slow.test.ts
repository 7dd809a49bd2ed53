/**
 * Tracing is on only with an OTLP endpoint (docs/tracing.md): without one nothing starts and
 * nothing is added to clients, workers or bundles; with one, `dropflow submit` sends its spans to
 * the collector over OTLP/HTTP before it exits.
 */
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

import { SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { Client, Connection } from '@temporalio/client';
import { describe, expect, inject, it } from 'vitest';

import { orderWorkflowId } from '../../src/order/contract.js';
import {
  otlpTracesEndpoint,
  startTracing,
  stopTracing,
  tracingBundleOptions,
  tracingClientOptions,
  tracingOn,
  tracingWorkerOptions,
} from '../../src/temporal/tracing.js';
import { accountOfTask } from '../../src/accounts/activityAccount.js';
import { runDropflow } from '../support/cli.js';
import { orderNumber } from '../supplier/orderHelpers.js';

describe('without an OTLP endpoint', () => {
  it('starts nothing and adds no interceptor', () => {
    expect(startTracing({ service: 'dropflow-worker', env: {} })).toBeUndefined();
    expect(tracingOn()).toBe(false);
    expect(tracingClientOptions()).toEqual({});
    expect(tracingWorkerOptions(accountOfTask)).toEqual({});
    expect(tracingBundleOptions()).toEqual({});
    // No tracer provider registered: the API's spans record nothing.
    expect(trace.getTracer('dropflow.test').startSpan('probe').isRecording()).toBe(false);
  });

  it('reads the traces endpoint first, the general one next; empty or disabled is off', () => {
    const general = 'http://collector:4318';
    const traces = 'http://collector:4318/v1/traces';
    expect(otlpTracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: general })).toBe(general);
    expect(
      otlpTracesEndpoint({
        OTEL_EXPORTER_OTLP_ENDPOINT: general,
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: traces,
      }),
    ).toBe(traces);
    expect(otlpTracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBeUndefined();
    expect(
      otlpTracesEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: general, OTEL_SDK_DISABLED: 'true' }),
    ).toBeUndefined();
  });
});

describe('with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('dropflow submit sends its StartWorkflow span to the collector over OTLP/HTTP', async () => {
    const received: { path: string; body: string }[] = [];
    const collector = createServer((req, res) => {
      void readBody(req).then((body) => {
        received.push({ path: req.url ?? '', body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    collector.listen(0, '127.0.0.1');
    await once(collector, 'listening');
    const { port } = collector.address() as AddressInfo;

    const example = JSON.parse(await readFile('examples/order-flow-b.json', 'utf8')) as object;
    const number = orderNumber('otlp');
    const prefix = `otlp-${process.pid}-${Date.now().toString(36)}`;
    try {
      const run = await runDropflow(['submit', '-'], {
        stdin: JSON.stringify({ ...example, orderNumber: number }),
        env: {
          TEMPORAL_ADDRESS: inject('temporalAddress'),
          TEMPORAL_NAMESPACE: inject('temporalNamespace'),
          TEMPORAL_TASK_QUEUE_PREFIX: prefix,
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
        },
      });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      // Sent before the command exited.
      const traces = received.filter((r) => r.path === '/v1/traces');
      expect(traces.length).toBeGreaterThan(0);
      const sent = traces.map((r) => r.body).join('\n');
      expect(sent).toContain('StartWorkflow:fulfillOrder');
      expect(sent).toContain(orderWorkflowId(number));
      expect(sent).toContain('dropflow-cli');
      expect(sent).not.toContain('Ada Example');
      expect(sent).not.toContain('ada@example.com');
    } finally {
      collector.close();
      await terminate(orderWorkflowId(number));
    }
  });
});

describe('an error on a span', () => {
  it('leaves its type, not its message or stack, which may echo what the supplier was sent', async () => {
    const exporter = new InMemorySpanExporter();
    startTracing({ service: 'dropflow-worker', exporter });
    try {
      const span = trace.getTracer('dropflow.test').startSpan('RunActivity:createOrderV3');
      const err = new TypeError('shippingPhone 3105550100 of Ada Example is invalid');
      span.recordException(err);
      span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
      span.end();
      const [sent] = exporter.getFinishedSpans();
      expect(sent?.name).toBe('RunActivity:createOrderV3');
      expect(sent?.status).toEqual({ code: SpanStatusCode.ERROR });
      expect(sent?.events.map((e) => [e.name, e.attributes])).toEqual([
        ['exception', { 'exception.type': 'TypeError' }],
      ]);
    } finally {
      await stopTracing();
    }
  });
});

function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  return once(req, 'end').then(() => Buffer.concat(chunks).toString('utf8'));
}

/** The order has no worker here: it goes, rather than wait on the dev server. */
async function terminate(workflowId: string): Promise<void> {
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  try {
    const client = new Client({ connection, namespace: inject('temporalNamespace') });
    await client.workflow
      .getHandle(workflowId)
      .terminate('test over')
      .catch(() => undefined);
  } finally {
    await connection.close();
  }
}
