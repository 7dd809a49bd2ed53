import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FaultRule } from '../../tools/src/sandbox/faults.js';
import { startSandbox, type StartedSandbox } from '../../tools/src/sandbox/server.js';
import { SupplierClient } from '../../src/supplier/client.js';
import { SupplierCode, SupplierError } from '../../src/supplier/errors.js';
import { TOKEN_CALL_RATE_LIMIT_RETRIES } from '../../src/supplier/tokens.js';
import { accountStats, newSandboxAccount, rawCall } from '../support/sandbox.js';

describe('tokens (docs/supplier-api.md §3)', () => {
  it('getAccessToken twice within 24 hours returns the same tokens and the openId', async () => {
    const { client, apiKey, openId } = await newSandboxAccount();
    const first = await client.api.getAccessToken({ apiKey });
    const second = await client.api.getAccessToken({ apiKey });
    expect(second.accessToken).toBe(first.accessToken);
    expect(second.refreshToken).toBe(first.refreshToken);
    expect(first.openId).toBe(openId);
    expect(Date.parse(first.accessTokenExpiryDate)).toBeGreaterThan(Date.now());
  });

  it('an unknown API key is refused with 1601000', async () => {
    const answer = await rawCall('authentication/getAccessToken', { body: { apiKey: 'nobody' } });
    expect(answer.body).toMatchObject({
      code: SupplierCode.UserNotFound,
      result: false,
      data: null,
    });
    expect(answer.body.requestId).toMatch(/\w+/);
  });

  it('a call without a valid token is refused with 1600001', async () => {
    const answer = await rawCall('authentication/logout', { method: 'POST', token: 'forged' });
    expect(answer.body.code).toBe(SupplierCode.AuthenticationFailed);
  });
});

describe('token lifecycle in the client', () => {
  let sandbox: StartedSandbox;
  beforeAll(async () => {
    // Access tokens that expire at once: every use needs a refresh.
    sandbox = await startSandbox({
      log: pino({ level: 'silent' }),
      port: 0,
      accessTokenLifetimeMs: 1,
      tokenCacheMs: 0,
      // Every use refreshes or obtains: the token endpoints' own limits would refuse most.
      tokenIntervalSeconds: 0,
      refreshesPerMinute: 0,
    });
  });
  afterAll(() => sandbox.close());

  const client = () =>
    new SupplierClient({ baseUrl: sandbox.url, apiKey: 'sandbox', tokenCallIntervalMs: 1_000 });
  const calls = () => sandbox.sandbox.state.stats.calls;
  const REFRESH = 'authentication/refreshAccessToken';
  /** What the supplier has seen so far: refreshes, key exchanges, calls refused with 1600200. */
  const seen = () => ({
    refresh: calls()[REFRESH] ?? 0,
    obtain: calls()['authentication/getAccessToken'] ?? 0,
    rateLimited: sandbox.sandbox.state.stats.rateLimited,
  });
  const since = (before: ReturnType<typeof seen>) => {
    const now = seen();
    return {
      refresh: now.refresh - before.refresh,
      obtain: now.obtain - before.obtain,
      rateLimited: now.rateLimited - before.rateLimited,
    };
  };
  /** A fault on this sandbox's account, through POST /__sandbox/faults. */
  const injectFault = async (rule: Partial<FaultRule> & Pick<FaultRule, 'path' | 'kind'>) => {
    const openId = sandbox.sandbox.accountByApiKey('sandbox')!.openId;
    const res = await fetch(`${sandbox.url}/__sandbox/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ openId, ...rule }),
    });
    expect(res.status).toBe(201);
  };

  it('refreshes an expired access token with the refresh token, and re-obtains it when refresh fails', async () => {
    const c = client();
    const first = await c.tokens.accessToken();
    const refreshed = await c.tokens.accessToken();
    expect(refreshed).not.toBe(first);
    expect(calls()['authentication/getAccessToken']).toBe(1);
    expect(calls()['authentication/refreshAccessToken']).toBe(1);

    // Someone else obtains new tokens for the account: ours can no longer be refreshed (1600003),
    // so the client uses the API key again.
    await c.api.getAccessToken({ apiKey: 'sandbox' });
    const again = await c.tokens.accessToken();
    expect(again).not.toBe(refreshed);
    expect(calls()['authentication/refreshAccessToken']).toBe(2);
    expect(calls()['authentication/getAccessToken']).toBe(3);
    await c.close();
  });

  it('spaces token calls from the last answer: one held up on its way does not get the next refused', async () => {
    const c = client();
    await c.tokens.accessToken();
    // The supplier sees this refresh 400 ms after it was sent, as if the network had held it up.
    await injectFault({ path: REFRESH, kind: 'latency', latencyMs: 400 });
    const before = seen();
    const late = await c.tokens.accessToken();
    const next = await c.tokens.accessToken();
    expect(next).not.toBe(late);
    expect(since(before)).toEqual({ refresh: 2, obtain: 0, rateLimited: 0 });
    await c.close();
  });

  it('waits out a 1600200 from refreshAccessToken and refreshes', async () => {
    const c = client();
    const first = await c.tokens.accessToken();
    await injectFault({ path: REFRESH, kind: 'rateLimit' });
    const before = seen();
    const refreshed = await c.tokens.accessToken();
    expect(refreshed).not.toBe(first);
    // Refused once, sent again: still the refresh token, not the API key.
    expect(since(before)).toEqual({ refresh: 2, obtain: 0, rateLimited: 1 });
    await c.close();
  });

  it('gives up after a bounded number of 1600200 answers, with the supplier code', async () => {
    const c = client();
    await c.tokens.accessToken();
    await injectFault({
      path: REFRESH,
      kind: 'rateLimit',
      times: TOKEN_CALL_RATE_LIMIT_RETRIES + 1,
    });
    const before = seen();
    const err = await c.tokens.accessToken().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SupplierError);
    expect(err).toMatchObject({ code: SupplierCode.TooManyRequests, kind: 'retryable' });
    const attempts = TOKEN_CALL_RATE_LIMIT_RETRIES + 1;
    expect(since(before)).toEqual({ refresh: attempts, obtain: 0, rateLimited: attempts });
    // The account's limit frees up again: the next call refreshes.
    expect(await c.tokens.accessToken()).toMatch(/\w+/);
    await c.close();
  });
});

describe('errors carry the supplier code, message and requestId', () => {
  it('1600001 from a refused token is classified as reauthenticate and the token dropped', async () => {
    const { client } = await newSandboxAccount();
    const token = await client.tokens.accessToken();
    // The logout spends the account's token-call slot: wait for the next one.
    await client.tokens.pace();
    await rawCall('authentication/logout', { method: 'POST', token });
    const err = await client.api.getBalance({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SupplierError);
    expect(err).toMatchObject({ code: 1600001, kind: 'reauthenticate' });
    expect((err as SupplierError).requestId).toMatch(/\w+/);
    // The next call obtains a new token instead of reusing the refused one.
    expect(await client.api.getBalance({})).toHaveProperty('amount');
    expect(await client.tokens.accessToken()).not.toBe(token);
  });

  it('counts calls per account in /__sandbox/stats', async () => {
    const { client, apiKey, openId } = await newSandboxAccount();
    await client.api.getAccessToken({ apiKey });
    expect((await accountStats(openId)).calls['authentication/getAccessToken']).toBe(1);
  });
});
