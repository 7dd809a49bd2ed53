/**
 * What the client makes of every way a call can fail, using the sandbox's injected faults (scoped
 * to this file's account, so other files are unaffected).
 */
import { describe, expect, it } from 'vitest';
import { SupplierClient } from '../../src/supplier/client.js';
import {
  SupplierCode,
  SupplierError,
  SupplierRequestInvalid,
  SupplierTransportError,
} from '../../src/supplier/errors.js';
import { accountStats, injectFault, newSandboxAccount, rawCall } from '../support/sandbox.js';

const failure = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );

describe('supplier failures, classified', () => {
  it('a connection reset on a read is a plain retryable transport error', async () => {
    const { client, apiKey, openId } = await newSandboxAccount();
    await injectFault({ path: 'authentication/getAccessToken', kind: 'reset', openId });
    const err = await failure(client.api.getAccessToken({ apiKey }));
    expect(err).toBeInstanceOf(SupplierTransportError);
    expect(err).toMatchObject({ kind: 'retryable', ambiguous: false });
  });

  it('a lost response after the supplier acted is reported as ambiguous', async () => {
    const { client, openId } = await newSandboxAccount();
    const token = await client.tokens.accessToken();
    await injectFault({ path: 'authentication/logout', kind: 'commitThenDrop', openId });
    const err = await failure(client.api.logout({}));
    expect(err).toBeInstanceOf(SupplierTransportError);
    expect(err).toMatchObject({ ambiguous: true });
    // The supplier did act: the token is dead.
    const after = await rawCall('authentication/logout', { method: 'POST', token });
    expect(after.body.code).toBe(SupplierCode.AuthenticationFailed);
  });

  it('an HTTP 5xx without the envelope is a retryable transport error with its status', async () => {
    const { client, apiKey, openId } = await newSandboxAccount();
    await injectFault({
      path: 'authentication/getAccessToken',
      kind: 'http5xx',
      status: 502,
      openId,
    });
    const err = await failure(client.api.getAccessToken({ apiKey }));
    expect(err).toBeInstanceOf(SupplierTransportError);
    expect(err).toMatchObject({ httpStatus: 502, kind: 'retryable' });
  });

  it('1600000 System busy and 1600200 Too Many Requests are retryable with a delay', async () => {
    const { client, apiKey, openId } = await newSandboxAccount();
    await injectFault({ path: 'authentication/getAccessToken', kind: 'busy', openId });
    await injectFault({ path: 'authentication/getAccessToken', kind: 'rateLimit', openId });
    const busy = await failure(client.api.getAccessToken({ apiKey }));
    expect(busy).toBeInstanceOf(SupplierError);
    expect(busy).toMatchObject({ code: SupplierCode.SystemBusy, kind: 'retryable' });
    expect((busy as SupplierError).retryAfterMs).toBeGreaterThan(0);
    const limited = await failure(client.api.getAccessToken({ apiKey }));
    expect(limited).toMatchObject({ code: SupplierCode.TooManyRequests, kind: 'retryable' });
    expect((limited as SupplierError).requestId).toMatch(/\w+/);
  });

  it('a supplier slower than the client timeout is a transport error', async () => {
    const { url, apiKey, openId } = await newSandboxAccount();
    const impatient = new SupplierClient({ baseUrl: url, apiKey, http: { requestTimeoutMs: 200 } });
    await injectFault({
      path: 'authentication/getAccessToken',
      kind: 'latency',
      latencyMs: 2_000,
      openId,
    });
    const err = await failure(impatient.api.getAccessToken({ apiKey }));
    expect(err).toBeInstanceOf(SupplierTransportError);
    await impatient.close();
  });

  it('an invalid request is refused before sending, naming the field and the rule', async () => {
    const { client, openId } = await newSandboxAccount();
    const err = await failure(client.api.getAccessToken({ apiKey: 'k'.repeat(201) }));
    expect(err).toBeInstanceOf(SupplierRequestInvalid);
    expect((err as SupplierRequestInvalid).issues).toEqual([
      { field: 'apiKey', rule: 'must be at most 200 characters' },
    ]);
    expect((await accountStats(openId)).calls['authentication/getAccessToken']).toBeUndefined();
  });
});

describe('the per-account rate limit', () => {
  it('a second call inside one second gets 1600200 in an HTTP 200 envelope, and is counted', async () => {
    const { apiKey, openId } = await newSandboxAccount();
    const first = await rawCall('authentication/getAccessToken', { body: { apiKey } });
    const second = await rawCall('authentication/getAccessToken', { body: { apiKey } });
    expect(first.body.code).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({
      code: SupplierCode.TooManyRequests,
      result: false,
      data: null,
    });
    expect((await accountStats(openId)).rateLimited).toBe(1);
  });
});
