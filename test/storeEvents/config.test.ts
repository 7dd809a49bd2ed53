/**
 * STORE_EVENTS_* in the environment: defaults, what the workers get, and errors that name the
 * variable and its rule without repeating a secret.
 */
import { describe, expect, it } from 'vitest';

import { ConfigError, loadConfig, storeEventsOptions } from '../../src/config/environment.js';
import { OLD_SECRET, SECRET } from './storeServer.js';

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('store events configuration', () => {
  it('is off by default, with the default timing', () => {
    expect(storeEventsOptions(loadConfig({}))).toEqual({
      timeoutMs: 10_000,
      retryFirstMs: 5_000,
      retryMaxMs: 3_600_000,
    });
  });

  it('gives the workers the URL, the secrets and the timing', () => {
    const config = loadConfig({
      STORE_EVENTS_URL: 'https://store.example.com/hooks/dropflow',
      STORE_EVENTS_SECRET: `${SECRET} ${OLD_SECRET}`,
      STORE_EVENTS_TIMEOUT_MS: '2500',
      STORE_EVENTS_RETRY_FIRST_SECONDS: '0.5',
      STORE_EVENTS_RETRY_MAX_MINUTES: '15',
    });
    expect(storeEventsOptions(config)).toEqual({
      url: 'https://store.example.com/hooks/dropflow',
      secret: `${SECRET} ${OLD_SECRET}`,
      timeoutMs: 2_500,
      retryFirstMs: 500,
      retryMaxMs: 900_000,
    });
  });

  it('needs STORE_EVENTS_SECRET with STORE_EVENTS_URL', () => {
    const config = loadConfig({ STORE_EVENTS_URL: 'https://store.example.com/hooks' });
    expect(errorOf(() => storeEventsOptions(config)).message).toMatch(
      /^invalid environment: STORE_EVENTS_SECRET: is required with STORE_EVENTS_URL/,
    );
  });

  it('refuses a malformed secret by name and rule, never by its text', () => {
    const secretText = 'whsec_THIS-IS-THE-SECRET-TEXT';
    const error = errorOf(() => loadConfig({ STORE_EVENTS_SECRET: secretText }));
    expect(error.message).toMatch(/STORE_EVENTS_SECRET: must be whsec_ followed by the base64/);
    expect(error.message).not.toContain('THIS-IS-THE-SECRET-TEXT');

    const second = errorOf(() => loadConfig({ STORE_EVENTS_SECRET: `${SECRET} ${secretText}` }));
    expect(second.message).toMatch(/STORE_EVENTS_SECRET: secret 2 must be whsec_/);
    expect(second.message).not.toContain('THIS-IS-THE-SECRET-TEXT');
    expect(second.message).not.toContain(SECRET.slice('whsec_'.length));
  });

  it.each([
    ['STORE_EVENTS_URL', 'ftp://store.example.com/'],
    ['STORE_EVENTS_URL', 'not a url'],
    ['STORE_EVENTS_TIMEOUT_MS', '0'],
    ['STORE_EVENTS_TIMEOUT_MS', '60001'],
    ['STORE_EVENTS_RETRY_FIRST_SECONDS', '0'],
    ['STORE_EVENTS_RETRY_FIRST_SECONDS', '3601'],
    ['STORE_EVENTS_RETRY_MAX_MINUTES', '0'],
    ['STORE_EVENTS_RETRY_MAX_MINUTES', '1441'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(errorOf(() => loadConfig({ [name]: value })).message).toContain(`${name}: `);
  });

  it('refuses a maximum wait shorter than the first', () => {
    const config = loadConfig({
      STORE_EVENTS_RETRY_FIRST_SECONDS: '600',
      STORE_EVENTS_RETRY_MAX_MINUTES: '5',
    });
    expect(errorOf(() => storeEventsOptions(config)).message).toMatch(
      /STORE_EVENTS_RETRY_MAX_MINUTES: must not be shorter than STORE_EVENTS_RETRY_FIRST_SECONDS/,
    );
  });
});
