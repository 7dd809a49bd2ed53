/**
 * One signed POST of a store event to a real local store: what the store receives, and what each
 * kind of failure (an error status, a refused connection, a store that never answers) reports.
 */
import { createHmac } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { verifyStoreEvent } from '../../src/client/storeEvents.js';
import { parseRetryAfter } from '../../src/net/retryAfter.js';
import { sendStoreEvent } from '../../src/storeEvents/sending.js';
import {
  closedPort,
  OLD_SECRET,
  paidEvent,
  SECRET,
  useStore,
  type TestStore,
} from './storeServer.js';

const store = useStore();

/** A URL with a path and a query, neither of which may appear in a message. */
const urlOf = (s: TestStore): string => `${s.origin}/hooks/dropflow?token=query-text-42`;

describe('sendStoreEvent', () => {
  it('POSTs the event as JSON, signed; a 2xx is delivered', async () => {
    const event = paidEvent('evt_send_ok');
    store.answer = (res) => res.writeHead(204).end();
    const before = Math.floor(Date.now() / 1000);

    const result = await sendStoreEvent({ url: urlOf(store), secret: SECRET }, event);

    expect(result).toEqual({ ok: true, status: 204 });
    expect(store.received).toHaveLength(1);
    const got = store.received[0]!;
    expect(got.method).toBe('POST');
    expect(got.url).toBe('/hooks/dropflow?token=query-text-42');
    expect(got.body.toString('utf8')).toBe(JSON.stringify(event));
    expect(got.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'dropflow',
      'webhook-id': 'evt_send_ok',
    });
    const ts = got.headers['webhook-timestamp'] as string;
    expect(Number(ts)).toBeGreaterThanOrEqual(before);
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key)
      .update(`evt_send_ok.${ts}.`)
      .update(got.body)
      .digest('base64');
    expect(got.headers['webhook-signature']).toBe(`v1,${expected}`);
    // And the store's own check takes it.
    expect(verifyStoreEvent(got.headers, got.body, SECRET)).toEqual(event);
  });

  it('signs with both secrets during a rotation; a store with either accepts', async () => {
    const event = paidEvent('evt_send_rotation');
    await sendStoreEvent({ url: urlOf(store), secret: `${OLD_SECRET} ${SECRET}` }, event);
    const got = store.received[0]!;
    expect((got.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    expect(verifyStoreEvent(got.headers, got.body, OLD_SECRET)).toEqual(event);
    expect(verifyStoreEvent(got.headers, got.body, SECRET)).toEqual(event);
  });

  it('keeps the event id across attempts, with each attempt’s own timestamp', async () => {
    const event = paidEvent('evt_send_twice');
    await sendStoreEvent({ url: urlOf(store), secret: SECRET }, event);
    await sendStoreEvent({ url: urlOf(store), secret: SECRET }, event);
    expect(store.received.map((r) => r.headers['webhook-id'])).toEqual([
      'evt_send_twice',
      'evt_send_twice',
    ]);
    expect(store.received.map((r) => r.body.toString('utf8'))).toEqual([
      JSON.stringify(event),
      JSON.stringify(event),
    ]);
  });

  it('reports an error status with the store’s host only', async () => {
    store.answer = (res) => res.writeHead(500).end('internal error, see logs');
    const result = await sendStoreEvent({ url: urlOf(store), secret: SECRET }, paidEvent());
    expect(result).toEqual({
      ok: false,
      status: 500,
      message: `store events: ${store.host} answered HTTP 500`,
    });
  });

  it('does not follow a redirect: only a 2xx delivers', async () => {
    store.answer = (res) => res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end();
    const result = await sendStoreEvent({ url: urlOf(store), secret: SECRET }, paidEvent());
    expect(result).toMatchObject({ ok: false, status: 302 });
    expect(store.received).toHaveLength(1);
  });

  it('passes on the store’s Retry-After, in seconds or as a date', async () => {
    store.answer = (res) => res.writeHead(429, { 'retry-after': '120' }).end();
    expect(await sendStoreEvent({ url: urlOf(store), secret: SECRET }, paidEvent())).toEqual({
      ok: false,
      status: 429,
      message: `store events: ${store.host} answered HTTP 429`,
      retryAfterMs: 120_000,
    });

    const later = new Date(Date.now() + 3_600_000).toUTCString();
    store.answer = (res) => res.writeHead(503, { 'retry-after': later }).end();
    const dated = await sendStoreEvent({ url: urlOf(store), secret: SECRET }, paidEvent());
    expect(dated).toMatchObject({ ok: false, status: 503 });
    // An HTTP date has whole seconds: within a few seconds of an hour from now.
    const retryAfterMs = dated.ok ? undefined : dated.retryAfterMs;
    expect(retryAfterMs).toBeGreaterThan(3_590_000);
    expect(retryAfterMs).toBeLessThanOrEqual(3_600_000);
  });

  it('reports a store it cannot connect to as not reached', async () => {
    const port = await closedPort();
    const result = await sendStoreEvent(
      { url: `http://127.0.0.1:${port}/hooks?token=query-text-42`, secret: SECRET },
      paidEvent(),
    );
    expect(result).toEqual({
      ok: false,
      message: `store events: 127.0.0.1:${port} not reached: ECONNREFUSED`,
    });
  });

  it('gives up on a store that never answers after the timeout', async () => {
    // Takes the request and never answers it.
    store.answer = () => undefined;
    const result = await sendStoreEvent(
      { url: urlOf(store), secret: SECRET, timeoutMs: 300 },
      paidEvent(),
    );
    expect(result).toEqual({
      ok: false,
      message: `store events: ${store.host} no answer within 300 ms`,
    });
    expect(store.received).toHaveLength(1);
  });

  it('takes a 2xx whose body never ends as delivered, without waiting for the body', async () => {
    store.answer = (res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('accepted, and then some');
    };
    const result = await sendStoreEvent(
      { url: urlOf(store), secret: SECRET, timeoutMs: 300 },
      paidEvent(),
    );
    expect(result).toEqual({ ok: true, status: 200 });
  });

  it('drops a large answer instead of reading it all', async () => {
    const size = 32 * 1024 * 1024;
    let written = 0;
    store.answer = (res) => {
      res.writeHead(200, { 'content-length': String(size) });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const pump = (): void => {
        while (written < size) {
          written += chunk.length;
          if (!res.write(chunk)) {
            res.once('drain', pump);
            return;
          }
        }
        res.end();
      };
      res.on('close', () => res.removeAllListeners('drain'));
      pump();
    };
    const result = await sendStoreEvent({ url: urlOf(store), secret: SECRET }, paidEvent());
    expect(result).toEqual({ ok: true, status: 200 });
    // The connection was dropped long before the store could write it all.
    expect(written).toBeLessThan(size);
  });

  it('never puts the secret, the path or the query in a message', async () => {
    store.answer = (res) => res.writeHead(401).end();
    const port = await closedPort();
    const results = [
      await sendStoreEvent({ url: urlOf(store), secret: SECRET }, paidEvent()),
      await sendStoreEvent(
        { url: `http://127.0.0.1:${port}/hooks/dropflow?token=query-text-42`, secret: SECRET },
        paidEvent(),
      ),
    ];
    for (const result of results) {
      expect(result.ok).toBe(false);
      const message = result.ok ? '' : result.message;
      for (const secretText of [SECRET, SECRET.slice(6), 'hooks', 'query-text-42']) {
        expect(message).not.toContain(secretText);
      }
    }
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-23T10:00:00Z');
  it.each([
    ['0', 0],
    ['30', 30_000],
    [' 5 ', 5_000],
    ['Mon, 23 Nov 2026 10:01:00 GMT', 60_000],
    ['Mon, 23 Nov 2026 09:00:00 GMT', 0],
  ])('reads %j', (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms);
  });
  it.each([undefined, '', '-1', '1.5', 'soon'])('ignores %j', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
  it('takes the first of repeated headers', () => {
    expect(parseRetryAfter(['7', '9'], now)).toBe(7_000);
  });
});
