import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type StartedSandbox } from '../../src/sandbox/server.js';
import { SupplierClient } from '../../src/supplier/client.js';
import { SupplierCode, SupplierError } from '../../src/supplier/errors.js';
import { accountStats, newSandboxAccount, rawCall } from '../support/sandbox.js';

describe('tokens (open-api.md §5)', () => {
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
    });
  });
  afterAll(() => sandbox.close());

  const client = () =>
    new SupplierClient({ baseUrl: sandbox.url, apiKey: 'sandbox', tokenCallIntervalMs: 1_000 });
  const calls = () => sandbox.sandbox.state.stats.calls;

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
