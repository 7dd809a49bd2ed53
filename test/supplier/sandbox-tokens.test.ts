/**
 * Token expiry mid-run: POST /__sandbox/tokens/expire makes the account's access token expired
 * now. Its next use answers 1600001; the refresh token still buys a new one, and so does the API
 * key (the client's way back).
 */
import { describe, expect, it } from 'vitest';
import { SupplierCode, SupplierError } from '../../src/supplier/errors.js';
import { control, expireTokens } from '../sandbox/controls.js';
import { eventually } from '../support/eventually.js';
import { newSandboxAccount, rawCall } from '../support/sandbox.js';

interface TokenData {
  accessToken: string;
  refreshToken: string;
}

describe('expired access tokens', () => {
  it('the client is refused once (reauthenticate), then obtains a new token and goes on', async () => {
    const { client, openId } = await newSandboxAccount();
    await client.api.getBalance({});
    const old = await client.tokens.accessToken();
    expect((await expireTokens(openId)).body).toEqual({ openId, expired: 1 });

    const refused = await rawCall('shopping/pay/getBalance', { token: old });
    expect(refused.body.code).toBe(SupplierCode.AuthenticationFailed);
    const err = await client.api.getBalance({}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SupplierError);
    expect(err).toMatchObject({ kind: 'reauthenticate' });

    const balance = await client.api.getBalance({});
    expect(balance.amount).toBeGreaterThanOrEqual(0);
    expect(await client.tokens.accessToken()).not.toBe(old);
    await client.close();
  });

  it('the refresh token stays valid and buys a working access token', async () => {
    const { apiKey, openId, client } = await newSandboxAccount();
    await client.close();
    const issued = await rawCall('authentication/getAccessToken', { body: { apiKey } });
    const tokens = issued.body.data as TokenData;
    await expireTokens(openId);
    const refused = await rawCall('shopping/pay/getBalance', { token: tokens.accessToken });
    expect(refused.body.code).toBe(SupplierCode.AuthenticationFailed);

    // Token calls are limited to one per second per account: wait for the next slot.
    const refreshed = await eventually(
      'a refresh outside the token rate limit',
      () =>
        rawCall('authentication/refreshAccessToken', {
          body: { refreshToken: tokens.refreshToken },
        }),
      (a) => a.body.code !== SupplierCode.TooManyRequests,
    );
    expect(refreshed.body.code).toBe(SupplierCode.Success);
    const fresh = refreshed.body.data as TokenData;
    expect(fresh.accessToken).not.toBe(tokens.accessToken);
    const ok = await rawCall('shopping/pay/getBalance', { token: fresh.accessToken });
    expect(ok.body.code).toBe(SupplierCode.Success);
  });

  it('answers 404 for an unknown account and 400 without an openId', async () => {
    expect((await expireTokens('no-such-account')).status).toBe(404);
    expect((await control('POST', 'tokens/expire', {})).status).toBe(400);
  });
});
