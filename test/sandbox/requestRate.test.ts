/**
 * The sandbox's per-account measures for `dropflow bench accounts`: an account's own tier,
 * enforced with 1600200; its requests by endpoint and refusals; and the most requests it sent in
 * any 1 s (a sliding window on the sandbox's clock; token calls left out). The window's rule on a
 * given clock, then over HTTP through the controls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { SupplierCode } from '../../src/supplier/errors.js';
import { SupplierClient } from '../../src/supplier/client.js';
import { RequestRate } from '../../tools/src/sandbox/requestRate.js';
import type { SandboxStats } from '../../tools/src/sandbox/state.js';
import { rawCall, sandboxUrl } from '../support/sandbox.js';
import { control, readSettings } from './controls.js';

const T0 = 5_000_000;
const BALANCE = 'shopping/pay/getBalance';
const TOKEN = 'authentication/getAccessToken';

describe('RequestRate', () => {
  it('counts the requests of the last 1000 ms, one exactly 1000 ms earlier not among them', () => {
    const rate = new RequestRate();
    const counts = [0, 400, 999].map((dt) => rate.record('a', T0 + dt));
    expect(counts).toEqual([1, 2, 3]);
    // T0 is 1000 ms before: out of the window that ends here.
    expect(rate.record('a', T0 + 1_000)).toBe(3);
    // Another account has its own window.
    expect(rate.record('b', T0 + 1_000)).toBe(1);
    expect(rate.record('a', T0 + 2_500)).toBe(1);
  });

  it('counts a request stamped on arrival but recorded after later ones in the window it came in', () => {
    const rate = new RequestRate();
    rate.record('a', T0 + 1_000);
    rate.record('a', T0 + 1_005);
    // Came first, parsed last: it shares the window that ends at T0 + 1005 with both.
    expect(rate.record('a', T0 + 10)).toBe(3);
    expect(rate.window('a').map((e) => e.at - T0)).toEqual([10, 1_000, 1_005]);
    // One 1000 ms before the last is not in its window, but in the one that ends at T0 + 1000.
    expect(rate.record('a', T0 + 5)).toBe(3);
    expect(rate.window('a').map((e) => e.at - T0)).toEqual([5, 10, 1_000]);
  });

  it('forgets an account’s window when its measure starts again', () => {
    const rate = new RequestRate();
    rate.record('a', T0);
    rate.record('a', T0 + 1);
    rate.forget('a');
    expect(rate.record('a', T0 + 2)).toBe(1);
  });
});

describe('over HTTP: an account of tier 2', () => {
  let openId: string;
  let client: SupplierClient;
  const stats = async () => (await control<SandboxStats>('GET', `stats?openId=${openId}`)).body;

  beforeAll(async () => {
    const created = await control<{ apiKey: string; openId: string }>('POST', 'accounts', {
      ratePerSecond: 2,
      oneBudget: true,
    });
    expect(created.status).toBe(201);
    openId = created.body.openId;
    client = new SupplierClient({
      baseUrl: sandboxUrl(),
      apiKey: created.body.apiKey,
      tokenCallIntervalMs: 1_000,
    });
  });

  afterAll(async () => {
    await client.close();
  });

  it('has the tier and the one budget it was created with', async () => {
    expect((await readSettings(openId)).body).toMatchObject({ ratePerSecond: 2, oneBudget: true });
  });

  it('leaves the token calls out of the peak', async () => {
    await client.tokens.accessToken();
    const s = await stats();
    expect(s.calls[TOKEN]).toBe(1);
    expect(s.peakRequestsPerSecond).toBe(0);
  });

  it('counts the requests by endpoint, the refusals, and the most it sent in 1 s', async () => {
    const token = await client.tokens.accessToken();
    const answers = await Promise.all(Array.from({ length: 5 }, () => rawCall(BALANCE, { token })));
    const refused = answers.filter((a) => a.body.code === SupplierCode.TooManyRequests).length;
    // Five at once at 2 per second: the supplier refuses some.
    expect(refused).toBeGreaterThanOrEqual(1);
    expect(answers.length - refused).toBeLessThanOrEqual(2);

    const s = await stats();
    expect(s.calls[BALANCE]).toBe(5);
    expect(s.rateLimited).toBe(refused);
    expect(s.rateLimitedCalls?.[BALANCE]).toBe(refused);
    // A refusal means the tier's 2 were accepted within the last second: 3 or more in 1 s.
    expect(s.peakRequestsPerSecond).toBeGreaterThanOrEqual(3);
    expect(s.peakRequestsPerSecond).toBeLessThanOrEqual(5);
    expect(typeof s.peakAt).toBe('number');
    // That second's requests, from its first: every one of them, each with its endpoint.
    expect(s.peakWindow).toHaveLength(s.peakRequestsPerSecond!);
    expect(s.peakWindow![0]!.ms).toBe(0);
    for (const e of s.peakWindow!) {
      expect(e.path).toBe(BALANCE);
      expect(e.ms).toBeLessThan(1_000);
    }
  });

  it('starts a new measure from zero on DELETE, the account and its tier kept', async () => {
    const before = await stats();
    const reset = await control<SandboxStats>('DELETE', `stats?openId=${openId}`);
    expect(reset.status).toBe(200);
    const s = await stats();
    expect(s).toMatchObject({ calls: {}, rateLimited: 0, peakRequestsPerSecond: 0 });
    expect(s.since).toBeGreaterThanOrEqual(before.since!);
    expect((await readSettings(openId)).body).toMatchObject({ ratePerSecond: 2 });
  });

  it('answers 400 without an account and 404 for an unknown one', async () => {
    expect((await control('DELETE', 'stats')).status).toBe(400);
    expect((await control('DELETE', 'stats?openId=nobody')).status).toBe(404);
  });
});
