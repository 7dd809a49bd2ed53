/**
 * `POST /webhooks/supplier` against real order workflows (this file's own queues and sandbox
 * account) and the real dev server: signatures computed here with node:crypto, never by src/.
 */
import { createServer, type Server } from 'node:net';

import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Stage } from '../../src/order/contract.js';
import { replayUpdate, webhookInboxId } from '../../src/inbox/contract.js';
import { startGateway, type StartedGateway } from '../../src/gateway/server.js';
import { queuePrefix, taskQueues } from '../../src/temporal/taskQueues.js';
import { UNKNOWN_ORDER_TTL_MS } from '../../src/inbox/inboxState.js';
import { useOrderHarness, reachStage, startOrder, validOrder } from '../support/orders.js';
import { advance, usOrder } from '../supplier/orderHelpers.js';
import { newsSignals } from '../security/support.js';
import { eventually } from '../support/eventually.js';
import {
  catalogueView,
  hmac,
  inbox,
  inboxHolding,
  messageId,
  orderMessage,
  push,
  pushSigned,
  quietLog,
  useTestGateway,
} from './support.js';
import { DEFAULT_CHECKOUT_SETTINGS } from '../../src/terms/checkoutSettings.js';

const h = useOrderHarness('gw-webhooks');
const gateway = useTestGateway(h);
let openId: string;
beforeAll(() => {
  openId = h.account.openId;
});

/** The supplier ships the order under `trackNumber` (shipped already: re-labels it). */
async function shipAtSupplier(svcOrderId: string, trackNumber: string): Promise<void> {
  expect((await advance(svcOrderId, 'SHIPPED', trackNumber)).status).toBe(200);
}

describe('an order at AWAITING_SHIPMENT hears signed order and logistics events', () => {
  let handle: WorkflowHandle;
  let orderNumber: string;
  let svcOrderId: string;
  let shipped: string;

  beforeAll(async () => {
    const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B' } });
    orderNumber = input.order.orderNumber;
    handle = await startOrder(h, input);
    svcOrderId = (await reachStage(handle, Stage.AWAITING_SHIPMENT)).svcOrderId!;
  });

  it('refuses forged, truncated, missing and tampered signatures with 401, and nothing changes', async () => {
    const before = await inbox(h);
    const body = JSON.stringify(
      orderMessage(messageId('forged'), {
        svcOrderId,
        orderNumber,
        orderStatus: 'SHIPPED',
        trackNumber: 'FORGED-1',
      }),
    );
    const good = hmac(openId, body);
    const tampered = body.replace('FORGED-1', 'FORGED-2');
    for (const [label, sent, sign] of [
      ['forged (another key)', body, hmac('not-the-open-id', body)],
      ['truncated', body, good.slice(0, -4)],
      ['missing', body, undefined],
      ['empty', body, ''],
      ['tampered body', tampered, good],
    ] as const) {
      const answer = await push(gateway, sent, sign);
      expect(answer.status, label).toBe(401);
      expect(JSON.stringify(answer.body), label).not.toMatch(/at .*\.ts|stack/i);
    }

    // A valid message afterwards: once the workflow shows it, anything sent before it would show.
    const marker = 'https://track.example.com/marker-1';
    const accepted = await pushSigned(
      gateway,
      openId,
      orderMessage(messageId('marker'), { svcOrderId, orderNumber, trackingUrl: marker }),
    );
    expect(accepted).toMatchObject({ status: 200, body: { outcome: 'delivered' } });
    await eventually(
      'the valid message in the history',
      () => newsSignals(handle),
      (n) => n >= 1,
    );
    expect(await newsSignals(handle)).toBe(1);
    expect(await inbox(h)).toEqual(before);
  });

  it('a signed SHIPPED event with a tracking number moves the order to SHIPPED, once the supplier shows it', async () => {
    await shipAtSupplier(svcOrderId, 'TRK-1');
    shipped = JSON.stringify(
      orderMessage(messageId('shipped'), {
        svcOrderId,
        orderNumber,
        orderStatus: 'SHIPPED',
        trackNumber: 'TRK-1',
        trackingUrl: null,
      }),
    );
    const answer = await push(gateway, shipped, hmac(openId, shipped));
    expect(answer).toMatchObject({ status: 200, body: { outcome: 'delivered' } });
    const status = await reachStage(handle, Stage.SHIPPED, (s) => s.trackNumber === 'TRK-1');
    expect(status.timeline.map((t) => t.stage)).toContain(Stage.SHIPPED);
  });

  it('the same messageId twice has one effect', async () => {
    await shipAtSupplier(svcOrderId, 'TRK-2');
    await pushSigned(
      gateway,
      openId,
      orderMessage(messageId('trk2'), { orderNumber, trackNumber: 'TRK-2' }),
    );
    await reachStage(handle, Stage.SHIPPED, (s) => s.trackNumber === 'TRK-2');
    const told = await newsSignals(handle);

    // The supplier's retry of the SHIPPED message: same messageId, same bytes.
    const again = await push(gateway, shipped, hmac(openId, shipped));
    expect(again).toMatchObject({ status: 200, body: { outcome: 'delivered' } });
    await pushSigned(
      gateway,
      openId,
      orderMessage(messageId('marker'), {
        orderNumber,
        trackingUrl: 'https://track.example.com/m',
      }),
    );
    // Once the later message shows in the history, a signal of the repeat would show too.
    await eventually(
      'the later message',
      () => newsSignals(handle),
      (n) => n >= told + 1,
    );
    expect(await newsSignals(handle)).toBe(told + 1);
    expect((await reachStage(handle, Stage.SHIPPED)).trackNumber).toBe('TRK-2');
  });

  it('a logistics event reaches the order through its svc order id', async () => {
    const answer = await pushSigned(gateway, openId, {
      messageId: messageId('logistic'),
      type: 'LOGISTIC',
      messageType: 'UPDATE',
      params: {
        orderId: svcOrderId,
        logisticName: 'SvcPacket Ordinary',
        trackingNumber: 'TRK-2',
        trackingUrl: 'https://track.example.com/TRK-2',
        trackingStatus: 1,
        logisticsTrackEvents: JSON.stringify([
          {
            status: 1,
            activity: 'Departed the warehouse',
            location: 'Shenzhen',
            eventTime: '2026-03-01 10:00:00',
            statusDesc: 'Warehouse outbound',
          },
        ]),
      },
    });
    expect(answer).toMatchObject({ status: 200, body: { outcome: 'delivered' } });
    const status = await reachStage(
      handle,
      Stage.SHIPPED,
      (s) => s.trackingEvents?.[0]?.activity === 'Departed the warehouse',
    );
    // The link told is the supplier's own for that number, not the push's.
    const [atSupplier] = await h.account.client.api.getOrderDetailBatch({ orderIds: [svcOrderId] });
    expect(status.trackingUrl).toBe(atSupplier?.trackingUrl ?? undefined);
    expect(status.trackNumber).toBe('TRK-2');
    expect(status.trackingEvents?.[0]).toMatchObject({ location: 'Shenzhen' });
  });
});

describe('events for no known order', () => {
  it('land in the inbox once, and replay delivers them when the order exists', async () => {
    const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B' } });
    const orderNumber = input.order.orderNumber;
    const id = messageId('early');
    const message = orderMessage(id, {
      orderNumber,
      orderStatus: 'SHIPPED',
      trackNumber: 'TRK-INBOX',
    });
    const before = await inbox(h);
    for (let i = 0; i < 2; i += 1) {
      const answer = await pushSigned(gateway, openId, message);
      expect(answer).toMatchObject({ status: 200, body: { outcome: 'held' } });
    }
    const held = await inboxHolding(h, id);
    expect(held.held.filter((e) => e.event.messageId === id)).toHaveLength(1);
    expect(held.received).toBe(before.received + 1);
    const entry = held.held.find((e) => e.event.messageId === id)!;
    expect(entry.reason).toContain(orderNumber);
    // Keyed by orderNumber, the miss is exact: only a replay tries again.
    expect(entry.nextReplayAt).toBeUndefined();
    // No order:<orderNumber> ever existed: held for a while, not for ever.
    expect(entry.unknownOrder).toBe(true);
    expect(Date.parse(entry.expiresAt!)).toBe(Date.parse(entry.heldAt) + UNKNOWN_ORDER_TTL_MS);

    const handle = await startOrder(h, input);
    const waiting = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    await shipAtSupplier(waiting.svcOrderId!, 'TRK-INBOX');
    const result = await h.client.workflow
      .getHandle(webhookInboxId(queuePrefix(h.queues)))
      .executeUpdate(replayUpdate, { args: [{ messageIds: [id] }] });
    expect(result).toEqual({ delivered: [id], closed: [], stillHeld: [] });
    await reachStage(handle, Stage.SHIPPED, (s) => s.trackNumber === 'TRK-INBOX');
    const after = await inbox(h);
    expect(after.held.some((e) => e.event.messageId === id)).toBe(false);
    expect(after.delivered).toBe(held.delivered + 1);
  });
});

describe('bodies the gateway refuses', () => {
  it('refuses a 2 MB body with 413 and holds nothing', async () => {
    const before = await inbox(h);
    const body = JSON.stringify(
      orderMessage(messageId('big'), { orderNumber: 'BIG-1', filler: 'x'.repeat(2 * 1024 * 1024) }),
    );
    const answer = await push(gateway, body, hmac(openId, body));
    expect(answer.status).toBe(413);
    expect(await inbox(h)).toEqual(before);
  });

  it('answers 400 to a body that is not JSON, or has no messageId, and holds nothing', async () => {
    const before = await inbox(h);
    const broken = '{"messageId": "m-1", "type": "ORDER", "params": {';
    const notJson = await push(gateway, broken, hmac(openId, broken));
    expect(notJson).toEqual({
      status: 400,
      body: { errors: [{ field: '(body)', rule: 'must be JSON' }] },
    });

    for (const noId of [
      { type: 'WEATHER', messageType: 'UPDATE', params: {} },
      { messageId: '', type: 'ORDER', messageType: 'UPDATE', params: {} },
      { messageId: { nested: 1 }, type: 'ORDER', messageType: 'UPDATE', params: {} },
      ['not', 'an', 'envelope'],
    ]) {
      const answer = await pushSigned(gateway, openId, noId);
      expect(answer.status, JSON.stringify(noId)).toBe(400);
      expect(answer.body['errors'], JSON.stringify(noId)).toEqual(expect.any(Array));
    }
    expect(await inbox(h)).toEqual(before);
  });
});

describe('signed messages dropflow cannot read', () => {
  it('are held in the inbox as unreadable (once per messageId) and answered 200', async () => {
    const before = await inbox(h);
    const weird = {
      messageId: messageId('weird'),
      type: 'WEATHER',
      messageType: 'UPDATE',
      params: { forecast: 'rain' },
    };
    for (let i = 0; i < 2; i += 1) {
      const answer = await pushSigned(gateway, openId, weird);
      expect(answer).toEqual({
        status: 200,
        body: { messageId: weird.messageId, outcome: 'held' },
      });
    }
    // An ORDER message of an unexpected shape: no orderNumber nor svcOrderId to route it by.
    const noIds = orderMessage(messageId('noids'), {});
    expect(await pushSigned(gateway, openId, noIds)).toMatchObject({
      status: 200,
      body: { outcome: 'held' },
    });

    await inboxHolding(h, weird.messageId);
    const view = await inboxHolding(h, noIds['messageId'] as string);
    expect(view.held.filter((e) => e.event.messageId === weird.messageId)).toHaveLength(1);
    expect(view.received).toBe(before.received + 2);
    const held = view.held.find((e) => e.event.messageId === weird.messageId)!;
    expect(held).toMatchObject({
      event: { type: 'WEATHER', messageType: 'UPDATE', params: { forecast: 'rain' } },
      autoReplay: false,
    });
    expect(held.reason).toMatch(/^unreadable: type must be one of ORDER/);
    expect(held.expiresAt).toBeUndefined();
    expect(held.nextReplayAt).toBeUndefined();
    const shapeless = view.held.find((e) => e.event.messageId === noIds['messageId'])!;
    expect(shapeless.reason).toMatch(/^unreadable: params\.svcOrderId is required/);

    // A replay reads them again: still unreadable, still held.
    const result = await h.client.workflow
      .getHandle(webhookInboxId(queuePrefix(h.queues)))
      .executeUpdate(replayUpdate, { args: [{ messageIds: [weird.messageId] }] });
    expect(result).toEqual({ delivered: [], closed: [], stillHeld: [weird.messageId] });
  });
});

describe('catalogue events', () => {
  it('go to the catalogue-events workflow, once per messageId', async () => {
    const id = messageId('product');
    const message = {
      messageId: id,
      type: 'PRODUCT',
      messageType: 'UPDATE',
      params: { pid: 'P0001', productSellPrice: 9.99, fields: ['productSellPrice'] },
    };
    for (let i = 0; i < 2; i += 1) {
      const answer = await pushSigned(gateway, openId, message);
      expect(answer).toMatchObject({ status: 200, body: { outcome: 'catalogue' } });
    }
    const view = await eventually(
      'the catalogue event kept',
      () => catalogueView(h),
      (v) => v.forwarding !== 'unknown' && v.pending === 0,
    );
    expect(view.recent.filter((e) => e.messageId === id)).toHaveLength(1);
    expect(view.received).toBe(1);
    // These workers have no CATALOGUE_EVENTS_URL: kept, not forwarded.
    expect(view.forwarding).toBe('off');
  });
});

describe('a slow Temporal', () => {
  let blackhole: Server;
  let slow: StartedGateway;
  let connection: Connection;

  beforeAll(async () => {
    // Accepts connections and never answers: every Temporal call hangs.
    blackhole = createServer(() => undefined);
    await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve));
    const { port } = blackhole.address() as { port: number };
    connection = Connection.lazy({ address: `127.0.0.1:${port}` });
    slow = await startGateway({
      checkout: DEFAULT_CHECKOUT_SETTINGS,
      temporalClient: new Client({ connection }),
      queues: taskQueues('gw-slow'),
      openId,
      log: quietLog,
      port: 0,
      host: '127.0.0.1',
    });
  });
  afterAll(async () => {
    await slow.close();
    await connection.close().catch(() => undefined);
    blackhole.close();
  });

  // How fast the 503 comes is the bench's to measure (a timing assertion here would be flaky on
  // a loaded machine); the deadline itself is what makes the answer come at all.
  it('answers 503 (the supplier retries), never 200', async () => {
    const answer = await pushSigned(
      slow,
      openId,
      orderMessage(messageId('slow'), { orderNumber: 'SLOW-1', orderStatus: 'SHIPPED' }),
    );
    expect(answer.status).toBe(503);
    expect(answer.body).not.toHaveProperty('outcome');
  });

  it('answers 503 to a signed unreadable message too: it is not held until Temporal has it', async () => {
    const answer = await pushSigned(slow, openId, {
      messageId: messageId('slow-weird'),
      type: 'WEATHER',
      messageType: 'UPDATE',
      params: {},
    });
    expect(answer.status).toBe(503);
    expect(answer.body).not.toHaveProperty('outcome');
  });

  it('is not ready (/readyz 503) while /healthz says the process is up', async () => {
    expect((await fetch(`${slow.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${slow.url}/readyz`)).status).toBe(503);
  });
});
