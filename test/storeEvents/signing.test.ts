/**
 * Store event signatures: the Standard Webhooks headers, checked here with node:crypto rather
 * than with the library that made them, one signature per secret while rotating, and the rule a
 * secret must follow.
 */
import { createHmac } from 'node:crypto';

import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';

import { storeEventHeaders } from '../../src/storeEvents/signing.js';
import { parseStoreSecrets, StoreSecretError } from '../../src/terms/storeEventsSettings.js';
import { OLD_SECRET, SECRET } from './storeServer.js';

/** The specification's signature, computed by hand. */
function hmacSignature(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
}

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected a throw');
}

const body = JSON.stringify({ id: 'evt_1', type: 'order.paid', note: 'ünïcode ✓' });
const at = new Date('2026-11-23T10:00:00.750Z');

describe('storeEventHeaders', () => {
  it('signs id.timestamp.body with HMAC-SHA256 of the secret’s key, as v1,<base64>', () => {
    const headers = storeEventHeaders('evt_1', at, body, SECRET);
    expect(headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'dropflow',
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': `v1,${hmacSignature(SECRET, 'evt_1', headers['webhook-timestamp']!, body)}`,
    });
    expect(headers['webhook-timestamp']).toBe('1795428000');
  });

  it('signs with every secret during a rotation, each signature on its own', () => {
    const headers = storeEventHeaders('evt_1', at, body, `${OLD_SECRET}  ${SECRET}`);
    const ts = headers['webhook-timestamp']!;
    const signatures = headers['webhook-signature']!.split(' ');
    expect(signatures).toEqual([
      `v1,${hmacSignature(OLD_SECRET, 'evt_1', ts, body)}`,
      `v1,${hmacSignature(SECRET, 'evt_1', ts, body)}`,
    ]);
    expect(signatures[0]).not.toBe(signatures[1]);
  });

  it('gives a receiver holding either secret a signature it accepts', () => {
    const headers = storeEventHeaders('evt_2', new Date(), body, `${OLD_SECRET} ${SECRET}`);
    const [oldSignature, newSignature] = headers['webhook-signature']!.split(' ');
    const accepts = (secret: string, signature: string | undefined): boolean => {
      try {
        new Webhook(secret).verify(body, { ...headers, 'webhook-signature': signature ?? '' });
        return true;
      } catch {
        return false;
      }
    };
    expect(accepts(OLD_SECRET, headers['webhook-signature'])).toBe(true);
    expect(accepts(SECRET, headers['webhook-signature'])).toBe(true);
    expect(accepts(OLD_SECRET, oldSignature)).toBe(true);
    expect(accepts(SECRET, newSignature)).toBe(true);
    expect(accepts(SECRET, oldSignature)).toBe(false);
    expect(accepts(OLD_SECRET, newSignature)).toBe(false);
  });
});

describe('parseStoreSecrets', () => {
  it('reads one secret or several separated by spaces', () => {
    expect(parseStoreSecrets(SECRET)).toEqual([SECRET]);
    expect(parseStoreSecrets(` ${OLD_SECRET}   ${SECRET} `)).toEqual([OLD_SECRET, SECRET]);
  });

  const key = (bytes: number): string => Buffer.alloc(bytes, 0x5a).toString('base64');
  it.each([
    ['no whsec_ prefix', key(32)],
    ['a key of 23 bytes', `whsec_${key(23)}`],
    ['a key of 65 bytes', `whsec_${key(65)}`],
    ['a key that is not base64', 'whsec_SECRET-TEXT-not*base64*at-all!!!!!!!!!!'],
    ['nothing', '   '],
  ])('refuses %s, saying the rule and not the text', (_what, value) => {
    expect(() => parseStoreSecrets(value)).toThrow(StoreSecretError);
    expect(() => parseStoreSecrets(value)).toThrow(/whsec_ followed by the base64 of 24 to 64/);
    const message = messageOf(() => parseStoreSecrets(value));
    if (value.trim() !== '') expect(message).not.toContain(value.trim().slice(-12));
  });

  it('names which secret of several is wrong', () => {
    expect(() => parseStoreSecrets(`${SECRET} whsec_short`)).toThrow(/^secret 2 must be whsec_/);
  });

  it('accepts the shortest and longest keys the rule allows', () => {
    expect(parseStoreSecrets(`whsec_${key(24)}`)).toHaveLength(1);
    expect(parseStoreSecrets(`whsec_${key(64)}`)).toHaveLength(1);
  });
});
