/**
 * Every supplier request is counted by endpoint and outcome code, timed, and a rate-limit refusal
 * (1600200 or HTTP 429) counted apart: read back from the process's real /metrics.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';

import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';

import { freePort } from '../../tools/src/localStack/ports.js';
import { METRICS } from '../../src/telemetry/metrics.js';
import { endpoint } from '../../src/supplier/endpoint.js';
import { SupplierTransportError } from '../../src/supplier/errors.js';
import { SupplierHttp } from '../../src/supplier/http.js';
import { installMetricsRuntime, scrape, valueOf, type Sample } from '../support/metrics.js';

const metricsUrl = installMetricsRuntime();

const ANSWERS: Record<string, { status: number; body: string }> = {
  '/api2.0/v1/metrics/ok': {
    status: 200,
    body: JSON.stringify({ code: 200, result: true, data: {}, requestId: 'r-ok' }),
  },
  '/api2.0/v1/metrics/limited': {
    status: 200,
    body: JSON.stringify({
      code: 1600200,
      result: false,
      message: 'Too Many Requests',
      data: null,
      requestId: 'r-limited',
    }),
  },
  '/api2.0/v1/metrics/throttled': { status: 429, body: 'slow down' },
  '/api2.0/v1/metrics/gateway': { status: 502, body: '<html>bad gateway</html>' },
};

let server: Server;
let http: SupplierHttp;

beforeAll(async () => {
  server = createServer((req, res) => {
    const answer = ANSWERS[new URL(req.url ?? '/', 'http://x').pathname];
    res.writeHead(answer?.status ?? 404, { 'content-type': 'application/json' });
    res.end(answer?.body ?? '');
  }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  http = new SupplierHttp(`http://127.0.0.1:${address.port}`);
});

afterAll(async () => {
  await http.close();
  server.close();
});

const probe = (name: string, path: string) =>
  endpoint({
    name,
    method: 'GET',
    path,
    request: z.object({}),
    response: z.unknown(),
    auth: false,
  });

async function sendAll(
  ep: ReturnType<typeof probe>,
  times: number,
  via: SupplierHttp = http,
): Promise<void> {
  for (let i = 0; i < times; i++) {
    await via.send(ep, {}).catch((err: unknown) => {
      // Answers without the envelope are transport errors; that is what they count as too.
      if (!(err instanceof SupplierTransportError)) throw err;
    });
  }
}

const { supplierRequests, supplierRequestLatency, supplierRateLimited } = METRICS;

it('counts answers by endpoint and envelope code, and times them', async () => {
  await sendAll(probe('metricsOk', 'metrics/ok'), 2);
  await sendAll(probe('metricsLimited', 'metrics/limited'), 1);
  const samples: Sample[] = await scrape(await metricsUrl);

  expect(valueOf(samples, supplierRequests.name, { endpoint: 'metricsOk', code: '200' })).toBe(2);
  expect(
    valueOf(samples, supplierRequests.name, { endpoint: 'metricsLimited', code: '1600200' }),
  ).toBe(1);
  expect(valueOf(samples, supplierRateLimited.name, { endpoint: 'metricsLimited' })).toBe(1);
  expect(valueOf(samples, supplierRateLimited.name, { endpoint: 'metricsOk' })).toBe(0);
  expect(valueOf(samples, `${supplierRequestLatency.name}_count`, { endpoint: 'metricsOk' })).toBe(
    2,
  );
  // The boundaries dropflow configures, not the SDK's coarse defaults.
  const les = samples
    .filter(
      (s) =>
        s.name === `${supplierRequestLatency.name}_bucket` && s.labels['endpoint'] === 'metricsOk',
    )
    .map((s) => s.labels['le']);
  expect(les).toEqual([...supplierRequestLatency.buckets.map(String), '+Inf']);
});

it('names answers without an envelope by HTTP status, and no answer as network', async () => {
  await sendAll(probe('metricsThrottled', 'metrics/throttled'), 1);
  await sendAll(probe('metricsGateway', 'metrics/gateway'), 2);
  const nobody = new SupplierHttp(`http://127.0.0.1:${await freePort()}`);
  try {
    await sendAll(probe('metricsRefused', 'metrics/ok'), 1, nobody);
  } finally {
    await nobody.close();
  }
  const samples = await scrape(await metricsUrl);

  expect(
    valueOf(samples, supplierRequests.name, { endpoint: 'metricsThrottled', code: 'http_429' }),
  ).toBe(1);
  expect(valueOf(samples, supplierRateLimited.name, { endpoint: 'metricsThrottled' })).toBe(1);
  expect(
    valueOf(samples, supplierRequests.name, { endpoint: 'metricsGateway', code: 'http_502' }),
  ).toBe(2);
  expect(
    valueOf(samples, supplierRequests.name, { endpoint: 'metricsRefused', code: 'network' }),
  ).toBe(1);
  expect(
    valueOf(samples, `${supplierRequestLatency.name}_count`, { endpoint: 'metricsRefused' }),
  ).toBe(1);
});
