/**
 * `dropflow gateway` as an operator runs it: serves its Prometheus metrics on `--metrics-port`
 * (the route pattern of each response, the webhook outcome), and exits on SIGTERM — the SDK
 * runtime it started only for its metrics does not keep the process alive.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

import { afterEach, expect, inject, it } from 'vitest';

import { freePort } from '../../tools/src/localStack/ports.js';
import { METRICS } from '../../src/telemetry/metrics.js';
import { eventually } from '../support/eventually.js';
import { parseExposition, valueOf } from '../support/metrics.js';

let child: ChildProcess | undefined;
// A gateway that did not stop (the test failed or timed out) must not outlive it.
afterEach(() => {
  if (child?.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

it('serves its metrics, and stops on SIGTERM', async () => {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const gateway = spawn(
    process.execPath,
    [
      'bin/dropflow.js',
      'gateway',
      '--temporal-address',
      inject('temporalAddress'),
      '--task-queue-prefix',
      `cli-gateway-${process.pid}`,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--metrics-port',
      String(metricsPort),
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        LOG_LEVEL: 'warn',
        WEBHOOK_OPEN_ID: 'cli-gateway-open-id',
        // As in production: the gateway refuses to start without one.
        DROPFLOW_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      },
    },
  );
  child = gateway;
  try {
    let ready = '';
    for await (const line of createInterface({ input: gateway.stdout })) {
      if (line.startsWith('gateway: ')) {
        ready = line;
        break;
      }
    }
    expect(ready).toContain(`metrics :${metricsPort}/metrics`);

    const forged = await fetch(`http://127.0.0.1:${port}/webhooks/supplier`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', sign: 'forged' },
      body: JSON.stringify({ messageId: 'cli-gateway-1', type: 'ORDER' }),
    });
    expect(forged.status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${port}/v1/orders/CLI-1`)).status).toBe(401);

    // A response is counted once it is sent (Fastify's onResponse), so the client may see the
    // response first: the scrape waits until both are counted.
    const { gatewayResponses, webhookEvents } = METRICS;
    const counts = await eventually(
      'the two refusals counted on /metrics',
      async () => {
        const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
        expect(res.status).toBe(200);
        const samples = parseExposition(await res.text());
        return [
          valueOf(samples, gatewayResponses.name, { route: '/webhooks/supplier', status: '401' }),
          valueOf(samples, gatewayResponses.name, {
            route: '/v1/orders/:orderNumber',
            status: '401',
          }),
          valueOf(samples, webhookEvents.name, { outcome: 'rejected' }),
        ];
      },
      (c) => c.every((n) => n > 0),
    );
    expect(counts).toEqual([1, 1, 1]);
  } finally {
    if (gateway.exitCode === null) gateway.kill('SIGTERM');
  }
  const [code] = (await once(gateway, 'exit')) as [number | null];
  expect(code).toBe(0);
});
