/**
 * Door: outbound URLs. dropflow sends API keys, tokens and signed store events to the URLs an
 * operator configures; a plain-http URL to another host would carry them across networks in
 * clear. Every outbound URL must be https://, unless its host is this machine (the sandbox, dev).
 */
import { describe, expect, it } from 'vitest';

import { OUTBOUND_URL_RULE, OutboundUrlError, outboundUrl } from '../../src/net/outboundUrl.js';

describe('outbound URLs', () => {
  it.each([
    'http://supplier.example.com/api',
    'http://10.0.0.5:8080',
    'http://127.0.0.1.nip.io/',
    'http://localhost.attacker.example/',
    'http://[::ffff:7f00:1]/',
    'ftp://supplier.example.com/',
    'not a url',
  ])('refuses %s, naming the field and the rule', (url) => {
    expect(() => outboundUrl(url, 'baseUrl')).toThrow(OutboundUrlError);
    expect(() => outboundUrl(url, 'baseUrl')).toThrow(`baseUrl: ${OUTBOUND_URL_RULE}`);
  });

  it.each([
    'https://supplier.example.com/api',
    'http://127.0.0.1:3000',
    'http://127.8.9.10/',
    'http://localhost:8080/events',
    'http://[::1]:9000/',
  ])('keeps %s (https, or plain http to loopback)', (url) => {
    expect(outboundUrl(url, 'baseUrl')).toBe(url);
  });
});
