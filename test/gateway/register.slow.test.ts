/**
 * `dropflow webhooks register`: the supplier's callback rule applied before asking it, every topic
 * enabled, product subscriptions in calls of 100 within the cap.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';

import { beforeAll, describe, expect, it } from 'vitest';

import {
  callbackUrlFor,
  CallbackUrlRefused,
  enableWebhooks,
  subscribeProducts,
} from '../../src/gateway/registration.js';
import { accountStats, newSandboxAccount, type TestAccount } from '../support/sandbox.js';

describe('callbackUrlFor', () => {
  it('builds <base>/webhooks/supplier from a public https base, keeping a path prefix', () => {
    expect(callbackUrlFor('https://hooks.example.com')).toBe(
      'https://hooks.example.com/webhooks/supplier',
    );
    expect(callbackUrlFor('https://example.com/dropflow/')).toBe(
      'https://example.com/dropflow/webhooks/supplier',
    );
  });

  it.each([
    ['http://hooks.example.com', /does not use https/],
    ['https://localhost:8080', /not publicly reachable/],
    ['https://api.localhost', /not publicly reachable/],
    ['https://127.0.0.1', /loopback or private/],
    ['https://[::1]:8443', /loopback or private/],
    ['https://10.1.2.3', /loopback or private/],
    ['https://hooks.example.com/?x=1', /query/],
    ['not a url', /not a URL/],
  ])('refuses %s', (base, message) => {
    expect(() => callbackUrlFor(base)).toThrow(CallbackUrlRefused);
    expect(() => callbackUrlFor(base)).toThrow(message);
  });

  it('lets local http through for the sandbox only when asked', () => {
    expect(callbackUrlFor('http://127.0.0.1:8080', { allowLocal: true })).toBe(
      'http://127.0.0.1:8080/webhooks/supplier',
    );
  });
});

describe('the command', () => {
  it('refuses a localhost base URL itself, with the reason, before any supplier call', async () => {
    const child = spawn(
      process.execPath,
      ['bin/dropflow.js', 'webhooks', 'register', '--base-url', 'http://localhost:8080'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        // Nothing listens there: the command must not get as far as calling the supplier.
        env: { ...process.env, LOG_LEVEL: 'warn', SANDBOX_PORT: '1' },
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(2);
    expect(stderr).toMatch(/does not use https: the supplier pushes only to public HTTPS/);
  });
});

describe('against the sandbox', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await newSandboxAccount();
    await enableWebhooks(account.client, callbackUrlFor('https://hooks.example.com'));
  });

  it('subscribes in calls of at most 100 ids and reports the ones refused', async () => {
    const real = Array.from({ length: 24 }, (_, i) => `P${String(i + 1).padStart(4, '0')}`);
    const missing = Array.from({ length: 110 }, (_, i) => `NOPE${i}`);
    const outcome = await subscribeProducts(account.client, [...real, ...missing, 'P0001']);
    expect(outcome.subscribed.sort()).toEqual(real);
    expect(outcome.failed.sort()).toEqual([...missing].sort());
    expect(outcome.notSent).toEqual([]);
    const calls = (await accountStats(account.openId)).calls['webhook/product/subscribe'];
    expect(calls).toBe(2);
  });

  it('stops at the cap and says which ids were not sent', async () => {
    const other = await newSandboxAccount();
    await enableWebhooks(other.client, callbackUrlFor('https://hooks.example.com'));
    const ids = ['P0001', 'P0002', 'P0003', 'P0004', 'P0005'];
    const outcome = await subscribeProducts(other.client, ids, { cap: 3 });
    expect(outcome.subscribed).toEqual(['P0001', 'P0002', 'P0003']);
    expect(outcome.notSent).toEqual(['P0004', 'P0005']);
    expect(outcome.stoppedBecause).toMatch(/cap of 3/);
  });
});
