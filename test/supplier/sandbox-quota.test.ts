/**
 * The daily quota fault: POST /__sandbox/faults {kind: "quota"} answers the envelope of a used-up
 * daily quota (1600201, a message naming the quota), which the client classifies as retryable
 * after the next 00:00 UTC.
 */
import { expect, it } from 'vitest';

import { classify, SupplierCode, SupplierError } from '../../src/supplier/errors.js';
import { accountStats, injectFault, newSandboxAccount, rawCall } from '../support/sandbox.js';

const DAY_MS = 24 * 60 * 60 * 1_000;

it('a used-up daily quota is retryable only from the next UTC day; later calls go through', async () => {
  const { client, openId } = await newSandboxAccount();
  await injectFault({ path: 'shopping/pay/getBalance', kind: 'quota', openId, times: 2 });

  const err = await client.api.getBalance({}).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SupplierError);
  const refused = err as SupplierError;
  expect(refused).toMatchObject({ code: SupplierCode.QuotaUsedUp, kind: 'retryable' });
  expect(refused.supplierMessage).toMatch(/quota/i);
  expect(refused.retryAfterMs).toBeGreaterThan(0);
  expect(refused.retryAfterMs).toBeLessThanOrEqual(DAY_MS);

  // The envelope as another integration sees it, classified at a known time of day.
  const raw = await rawCall('shopping/pay/getBalance', {
    token: await client.tokens.accessToken(),
  });
  expect(raw.body).toMatchObject({
    code: SupplierCode.QuotaUsedUp,
    result: false,
    data: null,
  });
  const at = new Date('2026-05-01T18:30:00Z');
  expect(classify(raw.body.code, raw.body.message, 'getBalance', at)).toEqual({
    kind: 'retryable',
    retryAfterMs: 5.5 * 60 * 60 * 1_000,
  });

  expect((await client.api.getBalance({})).amount).toBeGreaterThanOrEqual(0);
  expect((await accountStats(openId)).faultsInjected).toBe(2);
  await client.close();
});
