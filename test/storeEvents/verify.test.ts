/**
 * The store's side: verifyStoreEvent accepts what dropflow signs, from Node or fetch headers and
 * any body form, and refuses tampered, stale, unsigned or malformed requests with the reason.
 * Also reached through the package's public entry, `dropflow/client`.
 */
import { describe, expect, it } from 'vitest';

import * as publicClient from 'dropflow/client';

import {
  STORE_EVENT_TYPES,
  StoreEventType,
  StoreEventVerificationError,
  StoreSecretError,
  verifyStoreEvent,
  type StoreEvent,
} from '../../src/client/storeEvents.js';
import { storeEventHeaders } from '../../src/storeEvents/signing.js';
import { OLD_SECRET, paidEvent, SECRET } from './storeServer.js';

const OTHER_SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;

function signed(
  event: unknown,
  opts: { id?: string; at?: Date; secret?: string } = {},
): { headers: Record<string, string>; body: string } {
  const body = JSON.stringify(event);
  const id = opts.id ?? (event as { id: string }).id;
  return {
    headers: storeEventHeaders(id, opts.at ?? new Date(), body, opts.secret ?? SECRET),
    body,
  };
}

function rejection(fn: () => unknown): StoreEventVerificationError {
  try {
    fn();
  } catch (err) {
    if (err instanceof StoreEventVerificationError) return err;
    throw err;
  }
  throw new Error('expected the request to be refused');
}

describe('verifyStoreEvent', () => {
  it('returns the typed event of a signed request', () => {
    const event = paidEvent('evt_verify_ok');
    const { headers, body } = signed(event);
    const got = verifyStoreEvent(headers, body, SECRET);
    expect(got).toEqual(event);
    expect(got.type).toBe(StoreEventType.OrderPaid);
    if (got.type === StoreEventType.OrderPaid)
      expect(got.data.paidAt).toBe('2026-11-23T10:00:00.000Z');
  });

  it('reads Node headers in any case, arrays included, and fetch Headers', () => {
    const event = paidEvent('evt_verify_forms');
    const { headers, body } = signed(event);
    const nodeLike = {
      'Webhook-Id': headers['webhook-id'],
      'WEBHOOK-TIMESTAMP': [headers['webhook-timestamp']!],
      'webhook-signature': headers['webhook-signature'],
      'x-other': undefined,
    };
    expect(verifyStoreEvent(nodeLike, body, SECRET)).toEqual(event);
    expect(verifyStoreEvent(new Headers(headers), body, SECRET)).toEqual(event);
  });

  it('takes the raw body as a string, a Buffer or a Uint8Array', () => {
    const event = { ...paidEvent('evt_verify_bytes'), orderNumber: 'ÜMLAUT-ÖRDER-1' };
    const { headers, body } = signed(event);
    const buffer = Buffer.from(body, 'utf8');
    const bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    for (const raw of [body, buffer, bytes]) {
      expect(verifyStoreEvent(headers, raw, SECRET)).toEqual(event);
    }
  });

  it('refuses a body changed after signing', () => {
    const { headers, body } = signed(paidEvent('evt_verify_tampered'));
    const tampered = body.replace('12.5', '1250');
    expect(tampered).not.toBe(body);
    expect(rejection(() => verifyStoreEvent(headers, tampered, SECRET)).message).toMatch(
      /no signature in webhook-signature matches/,
    );
  });

  it('refuses a changed signature, id or timestamp', () => {
    const { headers, body } = signed(paidEvent('evt_verify_sig'));
    const signature = headers['webhook-signature']!;
    const flipped =
      signature.slice(0, -5) + (signature.at(-5) === 'A' ? 'B' : 'A') + signature.slice(-4);
    const changes: Record<string, string>[] = [
      { 'webhook-signature': flipped },
      { 'webhook-signature': `v2,${signature.slice(3)}` },
      { 'webhook-id': 'evt_verify_other' },
      { 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) },
    ];
    for (const change of changes) {
      expect(
        rejection(() => verifyStoreEvent({ ...headers, ...change }, body, SECRET)).message,
      ).toMatch(/no signature in webhook-signature matches/);
    }
  });

  it('refuses a request signed with another secret', () => {
    const { headers, body } = signed(paidEvent('evt_verify_other_secret'), {
      secret: OTHER_SECRET,
    });
    expect(() => verifyStoreEvent(headers, body, SECRET)).toThrow(StoreEventVerificationError);
  });

  it('accepts, during a rotation, a match with any of the secrets', () => {
    const event = paidEvent('evt_verify_rotation');
    // dropflow still signs with the old secret only; the store already knows both.
    const old = signed(event, { secret: OLD_SECRET });
    expect(verifyStoreEvent(old.headers, old.body, `${SECRET} ${OLD_SECRET}`)).toEqual(event);
    // dropflow signs with both; the store knows only the new one.
    const both = signed(event, { secret: `${OLD_SECRET} ${SECRET}` });
    expect(verifyStoreEvent(both.headers, both.body, SECRET)).toEqual(event);
    expect(() => verifyStoreEvent(both.headers, both.body, OTHER_SECRET)).toThrow(
      /no signature in webhook-signature matches/,
    );
  });

  it('refuses a timestamp more than 5 minutes old or ahead', () => {
    const event = paidEvent('evt_verify_stale');
    const stale = signed(event, { at: new Date(Date.now() - 6 * 60_000) });
    expect(rejection(() => verifyStoreEvent(stale.headers, stale.body, SECRET)).message).toMatch(
      /webhook-timestamp is more than 5 minutes in the past/,
    );
    const ahead = signed(event, { at: new Date(Date.now() + 6 * 60_000) });
    expect(rejection(() => verifyStoreEvent(ahead.headers, ahead.body, SECRET)).message).toMatch(
      /webhook-timestamp is more than 5 minutes in the future/,
    );
    const recent = signed(event, { at: new Date(Date.now() - 4 * 60_000) });
    expect(verifyStoreEvent(recent.headers, recent.body, SECRET)).toEqual(event);
  });

  it('names the headers that are missing', () => {
    const { headers, body } = signed(paidEvent('evt_verify_missing'));
    const { 'webhook-signature': _s, 'webhook-timestamp': _t, ...rest } = headers;
    expect(rejection(() => verifyStoreEvent(rest, body, SECRET)).message).toBe(
      'store event rejected: missing header webhook-timestamp, webhook-signature',
    );
    expect(() => verifyStoreEvent({ ...headers, 'webhook-id': '' }, body, SECRET)).toThrow(
      /missing header webhook-id/,
    );
  });

  it('refuses a signed body that is not a store event, naming the field and rule', () => {
    const event = paidEvent('evt_verify_shape');
    const cases: [unknown, RegExp][] = [
      [{ ...event, id: 'evt_something_else' }, /id must equal the webhook-id header/],
      [
        { ...event, type: 'order.teleported' },
        /type must be one of order\.created, .*dispute\.updated/,
      ],
      [{ ...event, orderNumber: '' }, /orderNumber must be a non-empty string/],
      [{ ...event, occurredAt: 'yesterday' }, /occurredAt must be an ISO 8601/],
      [{ ...event, stage: 7 }, /stage must be a non-empty string/],
      [{ ...event, data: 'paid' }, /data must be a JSON object/],
      [[event], /the body must be a JSON object/],
    ];
    for (const [body, rule] of cases) {
      const request = signed(body, { id: event.id });
      expect(
        rejection(() => verifyStoreEvent(request.headers, request.body, SECRET)).message,
      ).toMatch(rule);
    }
    const notJson = 'paid!';
    const headers = storeEventHeaders(event.id, new Date(), notJson, SECRET);
    expect(rejection(() => verifyStoreEvent(headers, notJson, SECRET)).message).toMatch(
      /the body must be JSON/,
    );
  });

  it('accepts every event type', () => {
    for (const type of STORE_EVENT_TYPES) {
      const event = { ...paidEvent(`evt_type_${type}`), type } as StoreEvent;
      const { headers, body } = signed(event);
      expect(verifyStoreEvent(headers, body, SECRET).type).toBe(type);
    }
  });

  it('refuses a malformed secret without repeating it', () => {
    const { headers, body } = signed(paidEvent('evt_verify_bad_secret'));
    const bad = 'whsec_not-a-secret-VERYSECRETTEXT';
    let message = '';
    try {
      verifyStoreEvent(headers, body, bad);
    } catch (err) {
      expect(err).toBeInstanceOf(StoreSecretError);
      message = (err as Error).message;
    }
    expect(message).toMatch(/whsec_ followed by the base64/);
    expect(message).not.toContain('VERYSECRETTEXT');
  });
});

describe('dropflow/client', () => {
  it('is the public entry: verifyStoreEvent and the event types resolve through it', () => {
    expect(publicClient.verifyStoreEvent).toBe(verifyStoreEvent);
    expect(publicClient.StoreEventVerificationError).toBe(StoreEventVerificationError);
    expect(publicClient.STORE_EVENT_TYPES).toEqual(STORE_EVENT_TYPES);
    expect(publicClient.StoreEventType.OrderShipped).toBe('order.shipped');
    // The order side of the client is there too.
    expect(typeof publicClient.OrderClient).toBe('function');
    expect(typeof publicClient.parseOrder).toBe('function');
    expect(publicClient.orderWorkflowId('A-1')).toBe('order:A-1');

    const event = paidEvent('evt_public_entry');
    const { headers, body } = signed(event);
    expect(publicClient.verifyStoreEvent(headers, body, SECRET)).toEqual(event);
    expect(() => publicClient.verifyStoreEvent(headers, `${body} `, SECRET)).toThrow(
      publicClient.StoreEventVerificationError,
    );
  });
});
