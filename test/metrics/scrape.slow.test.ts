/**
 * One process's real /metrics, as Prometheus scrapes it: a worker set and a gateway of one sandbox
 * account sharing the SDK runtime's exporter (as in `dropflow dev`). One order goes through the
 * sandbox — its batch payment's answer lost, so it is looked up — the gateway takes signed,
 * repeated and forged webhooks, and every dropflow series shows up under the name and labels
 * src/telemetry/metrics.ts defines.
 */
import { beforeAll, expect, it } from 'vitest';

import { Stage } from '../../src/order/contract.js';
import { METRICS } from '../../src/telemetry/metrics.js';
import { eventually } from '../support/eventually.js';
import {
  installMetricsRuntime,
  samplesOf,
  scrape,
  valueOf,
  type Sample,
} from '../support/metrics.js';
import {
  reachStage,
  startOrder,
  useOrderHarness,
  validOrder,
  visibleIn,
} from '../support/orders.js';
import { injectFault } from '../support/sandbox.js';
import { usOrder } from '../supplier/orderHelpers.js';
import {
  hmac,
  messageId,
  orderMessage,
  push,
  pushSigned,
  useTestGateway,
} from '../gateway/support.js';

// First, before the workers touch the runtime: it is installed once per process.
const metricsUrl = installMetricsRuntime();

beforeAll(async () => {
  await metricsUrl;
});
const h = useOrderHarness('metrics');
const gateway = useTestGateway(h);

const get = async (): Promise<Sample[]> => scrape(await metricsUrl);

it('exports supplier requests, reconciliations, stages, order gauges and gateway series', async () => {
  const { openId } = h.account;
  await injectFault({ path: 'shopping/pay/payBalanceV2', kind: 'commitThenDrop', openId });
  const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B', supplierLagSeconds: 2 } });
  const { orderNumber } = input.order;
  const handle = await startOrder(h, input);
  const { svcOrderId } = await reachStage(handle, Stage.AWAITING_SHIPMENT);

  // ---- the supplier client -------------------------------------------------------------------
  const { supplierRequests, supplierRequestLatency, reconciliations, orderStageEntered } = METRICS;
  let samples = await get();
  expect(valueOf(samples, supplierRequests.name, { endpoint: 'createOrderV3', code: '200' })).toBe(
    1,
  );
  // The payment whose answer was lost has no code to show, and was looked up once settled.
  expect(
    valueOf(samples, supplierRequests.name, { endpoint: 'payBalanceV2', code: 'network' }),
  ).toBe(1);
  // Every request timed (a rate-limited one and its resend included).
  const creates = valueOf(samples, supplierRequests.name, { endpoint: 'createOrderV3' });
  expect(
    valueOf(samples, `${supplierRequestLatency.name}_count`, { endpoint: 'createOrderV3' }),
  ).toBe(creates);
  expect(
    valueOf(samples, `${supplierRequestLatency.name}_bucket`, {
      endpoint: 'createOrderV3',
      le: '+Inf',
    }),
  ).toBe(creates);

  // ---- workflow code: a reconciliation and the stages entered ---------------------------------
  const [settled] = samplesOf(samples, reconciliations.name, {
    step: 'payBalanceV2',
    result: 'found',
  });
  expect(settled?.value).toBe(1);
  // The SDK tags workflow metrics with where they came from.
  expect(settled?.labels).toMatchObject({
    taskQueue: h.queues.orders,
    workflowType: 'accountCheckout',
  });
  for (const stage of [Stage.RECEIVED, Stage.CREATED, Stage.PAID, Stage.AWAITING_SHIPMENT]) {
    expect(
      valueOf(samples, orderStageEntered.name, {
        stage,
        taskQueue: h.queues.orders,
        workflowType: 'fulfillOrder',
      }),
      stage,
    ).toBe(1);
  }

  // ---- the order gauges, counted again by workers started anew --------------------------------
  await visibleIn(h, orderNumber, Stage.AWAITING_SHIPMENT);
  await h.stopWorkers();
  await h.restartWorkers();
  samples = await eventually(
    'the restarted workers to count the order',
    get,
    (s) =>
      valueOf(s, METRICS.orders.name, {
        task_queue: h.queues.orders,
        stage: Stage.AWAITING_SHIPMENT,
      }) === 1,
  );
  expect(
    valueOf(samples, METRICS.orders.name, { task_queue: h.queues.orders, stage: Stage.PAID }),
  ).toBe(0);
  expect(valueOf(samples, METRICS.ordersNeedingPerson.name, { task_queue: h.queues.orders })).toBe(
    0,
  );
  expect(valueOf(samples, METRICS.storeEventsBehind.name, { task_queue: h.queues.orders })).toBe(0);

  // ---- the gateway ----------------------------------------------------------------------------
  const shipped = JSON.stringify(
    orderMessage(messageId('metrics-shipped'), {
      svcOrderId,
      orderNumber,
      orderStatus: 'SHIPPED',
      trackNumber: 'TRK-METRICS',
    }),
  );
  expect((await push(gateway, shipped, hmac(openId, shipped))).status).toBe(200);
  // The supplier's retry of the same message.
  expect((await push(gateway, shipped, hmac(openId, shipped))).status).toBe(200);
  expect((await push(gateway, shipped, hmac('not-the-open-id', shipped))).status).toBe(401);
  const unknown = orderMessage(messageId('metrics-unknown'), {
    orderNumber: `NOBODY-${orderNumber}`,
    orderStatus: 'SHIPPED',
  });
  expect(await pushSigned(gateway, openId, unknown)).toMatchObject({
    status: 200,
    body: { outcome: 'held' },
  });
  const status = await fetch(`${gateway.url}/v1/orders/${orderNumber}`);
  expect(status.status).toBe(401);
  expect((await fetch(`${gateway.url}/nowhere/${orderNumber}`)).status).toBe(404);

  const { webhookEvents, gatewayResponses } = METRICS;
  // A response is counted once it is sent (Fastify's onResponse): the client may see it first.
  samples = await eventually(
    'the last two responses counted',
    get,
    (s) =>
      valueOf(s, gatewayResponses.name, { route: 'unmatched', status: '404' }) > 0 &&
      valueOf(s, gatewayResponses.name, { route: '/v1/orders/:orderNumber', status: '401' }) > 0,
  );
  const events = (outcome: string) => valueOf(samples, webhookEvents.name, { outcome });
  expect({
    received: events('received'),
    signalled: events('signalled'),
    duplicate: events('duplicate'),
    rejected: events('rejected'),
    held: events('held'),
    skipped: events('skipped'),
    failed: events('failed'),
  }).toEqual({
    received: 4,
    signalled: 1,
    duplicate: 1,
    rejected: 1,
    held: 1,
    skipped: 0,
    failed: 0,
  });
  const responses = (route: string, code: string) =>
    valueOf(samples, gatewayResponses.name, { route, status: code });
  expect(responses('/webhooks/supplier', '200')).toBe(3);
  expect(responses('/webhooks/supplier', '401')).toBe(1);
  // The route's pattern, never the order number.
  expect(responses('/v1/orders/:orderNumber', '401')).toBe(1);
  expect(responses('unmatched', '404')).toBe(1);
  expect(
    samplesOf(samples, gatewayResponses.name).filter((s) =>
      (s.labels['route'] ?? '').includes(orderNumber),
    ),
  ).toEqual([]);
});
