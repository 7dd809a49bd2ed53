/**
 * Catalogue events forwarded upstream (CATALOGUE_EVENTS_URL on the workers): a failing upstream
 * is tried again, never skipped; a success counts the event as forwarded.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterAll, beforeAll, expect, it } from 'vitest';

import type { WebhookEvent } from '../../src/inbox/contract.js';
import { useOrderHarness } from '../support/orders.js';
import { eventually } from '../support/eventually.js';
import { catalogueView, messageId, pushSigned, useTestGateway } from './support.js';

let upstream: Server;
const received: { status: number; events: WebhookEvent[] }[] = [];

beforeAll(async () => {
  // Refuses the first delivery, accepts the rest.
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = received.length === 0 ? 503 : 200;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { events: WebhookEvent[] };
      received.push({ status, events: body.events });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
});
afterAll(() => {
  upstream.close();
});
const h = useOrderHarness('gw-catalogue', undefined, () => {
  const { port } = upstream.address() as AddressInfo;
  return { catalogueEventsUrl: `http://127.0.0.1:${port}/catalogue` };
});
const gateway = useTestGateway(h);

it('stock events reach upstream, retried through a failure, once per messageId', async () => {
  const message = {
    messageId: messageId('stock'),
    type: 'STOCK',
    messageType: 'UPDATE',
    params: {
      'P0002-V1': [
        { vid: 'P0002-V1', areaId: 1, areaEn: 'China', countryCode: 'CN', storageNum: 7 },
      ],
    },
  };
  for (let i = 0; i < 2; i += 1) {
    const answer = await pushSigned(gateway, h.account.openId, message);
    expect(answer).toMatchObject({ status: 200, body: { outcome: 'catalogue' } });
  }
  const view = await eventually(
    'the event forwarded',
    () => catalogueView(h),
    (v) => v.forwarded === 1,
  );
  expect(view).toMatchObject({ forwarding: 'upstream', pending: 0, received: 1 });
  expect(view.lastError).toBeUndefined();
  expect(received.map((r) => r.status)).toEqual([503, 200]);
  for (const r of received) {
    expect(r.events.map((e) => e.messageId)).toEqual([message.messageId]);
    expect(r.events[0]).toMatchObject({ type: 'STOCK', params: message.params });
  }
});
