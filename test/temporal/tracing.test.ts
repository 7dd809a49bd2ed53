/**
 * One trace per order (docs/tracing.md): an order submitted through the gateway with the store's
 * `traceparent`, run to COMPLETED by real workers against the sandbox, leaves one trace from the
 * intake request through its workflow, its activities and its supplier requests, with the account
 * and the supplier's requestIds on them, and none of the recipient's data nor the API key.
 * Spans go to an in-memory exporter through the product's own setup (startTracing).
 */
import { readFile } from 'node:fs/promises';

import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';

import { DEFAULT_ACCOUNT } from '../../src/accounts/contract.js';
import { Stage, orderWorkflowId } from '../../src/order/contract.js';
import { startTracing, stopTracing } from '../../src/temporal/tracing.js';
import { reachStage, sweepOnce, useOrderHarness } from '../support/orders.js';
import { advance, orderNumber } from '../supplier/orderHelpers.js';
import { useTestGateway } from '../gateway/support.js';

// Before the harness bundles its workflows and makes its client: they take tracing from here.
const exporter = new InMemorySpanExporter();
startTracing({ service: 'dropflow-worker', exporter });
afterAll(stopTracing);

const TOKEN = 'tracing-test-token-0123456789abcdef';
const h = useOrderHarness('tracing');
const gateway = useTestGateway(h, { intakeToken: TOKEN });

/** The store's trace: the intake continues it. */
const STORE_TRACE = 'f1e2d3c4b5a697887766554433221100';
const STORE_SPAN = '0123456789abcdef';

/** The recipient's data, unlike anything else in a trace. */
const personal = {
  shippingCustomerName: 'Zelinda Quartermaine',
  shippingAddress: '77 Quiet Harbour Lane',
  shippingAddress2: 'Flat 9Q',
  shippingPhone: '3105558642',
  email: 'zelinda.quartermaine@example.com',
};

async function submitThroughGateway(): Promise<string> {
  const example = JSON.parse(await readFile('examples/order-flow-b.json', 'utf8')) as object;
  const number = orderNumber('traced');
  const res = await fetch(`${gateway.url}/v1/orders`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      traceparent: `00-${STORE_TRACE}-${STORE_SPAN}-01`,
    },
    body: JSON.stringify({ ...example, ...personal, orderNumber: number }),
  });
  expect(res.status).toBe(201);
  return number;
}

const attr = (span: ReadableSpan, key: string) => span.attributes[key];

describe('tracing an order', () => {
  it('links the intake, the workflow, its activities and its supplier requests in one trace', async () => {
    const number = await submitThroughGateway();
    const handle = h.client.workflow.getHandle(orderWorkflowId(number));
    const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    // To the end, so that RunWorkflow, which spans the whole run, is exported too.
    expect((await advance(waiting.svcOrderId!, 'SHIPPED')).status).toBe(200);
    await sweepOnce(h);
    await reachStage(handle, Stage.SHIPPED);
    expect((await advance(waiting.svcOrderId!, 'DELIVERED')).status).toBe(200);
    await sweepOnce(h);
    await handle.result();

    const spans = exporter.getFinishedSpans();
    const intake = spans.find((s) => s.name === 'POST /v1/orders');
    expect(intake?.kind).toBe(SpanKind.SERVER);
    // The store's trace goes on.
    expect(intake?.spanContext().traceId).toBe(STORE_TRACE);
    expect(intake?.parentSpanId).toBe(STORE_SPAN);
    expect(attr(intake!, 'dropflow.order_number')).toBe(number);
    expect(attr(intake!, 'http.response.status_code')).toBe(201);

    const trace = spans.filter((s) => s.spanContext().traceId === STORE_TRACE);
    const names = trace.map((s) => s.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'POST /v1/orders',
        'StartWorkflow:fulfillOrder',
        'RunWorkflow:fulfillOrder',
        'supplier createOrderV3',
      ]),
    );
    expect(names.some((n) => n.startsWith('StartActivity:'))).toBe(true);
    expect(names.some((n) => n.startsWith('RunActivity:'))).toBe(true);

    const run = trace.find((s) => s.name === 'RunWorkflow:fulfillOrder')!;
    expect(attr(run, 'dropflow.account')).toBe(DEFAULT_ACCOUNT);
    expect(attr(run, 'temporalWorkflowId')).toBe(orderWorkflowId(number));
    for (const activity of trace.filter((s) => /^(Start|Run)Activity:/.test(s.name))) {
      expect(attr(activity, 'dropflow.account'), activity.name).toBe(DEFAULT_ACCOUNT);
    }

    const supplier = trace.filter((s) => s.name.startsWith('supplier '));
    for (const call of supplier) {
      expect(call.kind).toBe(SpanKind.CLIENT);
      expect(attr(call, 'supplier.endpoint'), call.name).toBe(call.name.slice('supplier '.length));
      expect(attr(call, 'url.path'), call.name).toMatch(/^\/api2\.0\/v1\/\S+$/);
      expect(attr(call, 'supplier.request_id'), call.name).toMatch(/\S/);
      expect(attr(call, 'supplier.code'), call.name).toBe(200);
      expect(attr(call, 'http.response.status_code'), call.name).toBe(200);
      expect(attr(call, 'dropflow.account'), call.name).toBe(DEFAULT_ACCOUNT);
    }
  });

  it('puts none of the recipient’s data nor the API key on any span', () => {
    const spans = exporter.getFinishedSpans();
    expect(spans.length).toBeGreaterThan(0);
    const secrets = [...Object.values(personal), h.account.apiKey];
    for (const span of spans) {
      const text = JSON.stringify({
        name: span.name,
        attributes: span.attributes,
        events: span.events,
        links: span.links,
        status: span.status,
        resource: span.resource.attributes,
      });
      for (const secret of secrets) expect(text, span.name).not.toContain(secret);
    }
  });
});
