/**
 * `dropflow events replay`: an order's store events, read from its encrypted order and dispute
 * histories, sent again to the store with their ids, signed, in order; it stops at the first the
 * store refuses, `--only` picks events, and neither the secret nor the URL's query is printed.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';

import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';

import { orderWorkflowId } from '../../src/order/contract.js';
import { disputeWorkflowId } from '../../src/dispute/contract.js';
import type { StoreEvent } from '../../src/storeEvents/contract.js';
import { recordedStoreEvents } from '../../src/cli/storeEventHistory.js';
import { eventually } from '../support/eventually.js';
import { emitterHarness, storeEvent, type EmitterHarness } from '../storeEvents/emitterHarness.js';

const exec = promisify(execFile);
const secret = `whsec_${randomBytes(24).toString('base64')}`;
const QUERY_TOKEN = 'qtoken-4f2a9c';

interface Received {
  webhookId: string;
  event: StoreEvent;
  signed: boolean;
}
const received: Received[] = [];
/** The status the store answers for an event id (default 200). */
const answers = new Map<string, number>();
let server: Server;
let url: string;
let h: EmitterHarness;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let signed = true;
      try {
        new Webhook(secret).verify(body, req.headers as Record<string, string>);
      } catch {
        signed = false;
      }
      const event = JSON.parse(body) as StoreEvent;
      received.push({ webhookId: String(req.headers['webhook-id']), event, signed });
      res.statusCode = answers.get(event.id) ?? 200;
      res.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/store/events?token=${QUERY_TOKEN}`;
  h = await emitterHarness('events-replay');
});
afterAll(async () => {
  await h.close();
  server.close();
});

async function replay(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(
      process.execPath,
      [
        'bin/dropflow.js',
        'events',
        'replay',
        ...args,
        '--temporal-address',
        inject('temporalAddress'),
        '--namespace',
        inject('temporalNamespace'),
      ],
      {
        env: Object.fromEntries(
          Object.entries<string | undefined>({
            ...process.env,
            LOG_LEVEL: 'warn',
            DROPFLOW_ENCRYPTION_KEY: Buffer.from(h.key.key).toString('base64'),
            DROPFLOW_ENCRYPTION_KEY_ID: h.key.id,
            STORE_EVENTS_URL: url,
            STORE_EVENTS_SECRET: secret,
            ...env,
          }).filter((e): e is [string, string] => e[1] !== undefined),
        ),
      },
    );
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

it('sends the events again, same ids, signed, in order, and stops at the first refusal', async () => {
  const orderNumber = `REPLAY-${Date.now().toString(36)}`;
  const events = [
    storeEvent(orderNumber),
    storeEvent(orderNumber),
    storeEvent(orderNumber),
    storeEvent(orderNumber, 'dispute.updated'),
  ] as const;
  await h.emit('fulfillOrder', orderWorkflowId(orderNumber), [
    { event: events[0], attempts: 2 },
    { event: events[1], attempts: 1 },
    { event: events[2], attempts: 1 },
  ]);
  await h.emit('disputeOrder', disputeWorkflowId(orderNumber, 'df-r'), [
    { event: events[3], attempts: 1 },
  ]);
  const ids = events.map((e) => e.id);
  await eventually(
    'the dispute in visibility',
    () => recordedStoreEvents(h.client, orderNumber),
    (e) => e.length === 4,
  );

  // The store refuses the second event: the third and the dispute's wait.
  answers.set(ids[1]!, 500);
  received.length = 0;
  const first = await replay([orderNumber]);
  expect(first.code, first.stderr).toBe(1);
  expect(received.map((r) => r.webhookId)).toEqual([ids[0], ids[1]]);
  const lines = first.stdout.trim().split('\n');
  expect(lines[0]).toMatch(new RegExp(`^sent +order\\.paid +${ids[0]!} +HTTP 200$`));
  expect(lines[1]).toMatch(
    new RegExp(`^failed +order\\.paid +${ids[1]!} +store events: .* HTTP 500`),
  );
  expect(lines[2]).toMatch(new RegExp(`^not sent +order\\.paid +${ids[2]!} `));
  expect(lines[3]).toMatch(new RegExp(`^not sent +dispute\\.updated +${ids[3]!} `));
  expect(lines[4]).toBe(
    `${orderNumber}: 1 sent, 1 failed, 2 not sent to ${new URL(url).host} (events after a failure wait, so that none arrives out of order)`,
  );

  // Once the store takes it, everything goes, in order, as one JSON document.
  answers.delete(ids[1]!);
  received.length = 0;
  const second = await replay([orderNumber, '--json']);
  expect(second.code, second.stderr).toBe(0);
  expect(received.map((r) => r.webhookId)).toEqual(ids);
  expect(received.every((r) => r.signed)).toBe(true);
  expect(received.map((r) => r.event)).toEqual(events);
  const report = JSON.parse(second.stdout) as {
    sent: number;
    events: { id: string; outcome: string }[];
  };
  expect(report.sent).toBe(4);
  expect(report.events.map((e) => [e.id, e.outcome])).toEqual(ids.map((id) => [id, 'sent']));

  // --only: the named events, in the order emitted whatever the order named.
  received.length = 0;
  const only = await replay([orderNumber, '--only', `${ids[3]!},${ids[1]!}`]);
  expect(only.code, only.stderr).toBe(0);
  expect(received.map((r) => r.webhookId)).toEqual([ids[1], ids[3]]);

  // Neither the secret nor the URL's query reach the output.
  for (const run of [first, second, only]) {
    for (const text of [run.stdout, run.stderr]) {
      expect(text).not.toContain(secret.slice(6));
      expect(text).not.toContain(QUERY_TOKEN);
    }
  }
});

it('refuses ids the order did not emit, and sends nothing', async () => {
  const orderNumber = `REPLAY-ONLY-${Date.now().toString(36)}`;
  const event = storeEvent(orderNumber);
  await h.emit('fulfillOrder', orderWorkflowId(orderNumber), [{ event, attempts: 1 }]);
  received.length = 0;
  const run = await replay([orderNumber, '--only', `${event.id},evt_unknown`]);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain(`order ${orderNumber} emitted no event evt_unknown; nothing sent`);
  expect(received).toEqual([]);
});

it('says when there is nothing to send', async () => {
  const orderNumber = `REPLAY-NONE-${Date.now().toString(36)}`;
  await h.emit('fulfillOrder', orderWorkflowId(orderNumber), []);
  const run = await replay([orderNumber]);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toBe(`${orderNumber}: no store events to send\n`);
});

it('says what is missing: the store, or the order', async () => {
  const noStore = await replay(['ANY-ORDER'], {
    STORE_EVENTS_URL: undefined,
    STORE_EVENTS_SECRET: undefined,
  });
  expect(noStore.code).toBe(1);
  expect(noStore.stderr).toContain('STORE_EVENTS_URL and STORE_EVENTS_SECRET are not set');

  const unknown = await replay(['NO-SUCH-ORDER-9']);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('no order NO-SUCH-ORDER-9');
});
