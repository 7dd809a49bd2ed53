/**
 * The sandbox's "one budget" setting: every request of the account but the token calls spends its
 * general limit, the batch queries' own limit inside it. The rule on a given clock
 * (sandbox/rateLimit.ts), then over HTTP for an account with and one without the setting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../tools/src/sandbox/rateLimit.js';
import { SupplierCode } from '../../src/supplier/errors.js';
import { newSandboxAccount, rawCall, type TestAccount } from '../support/sandbox.js';
import { changeSettings } from './controls.js';

const T0 = 1_000_000;
const rates: Record<string, number> = { standard: 4, batch: 2, token: 1 };

describe('RateLimiter', () => {
  it('with one budget, a batch query fits its own limit and the account’s, and spends both', () => {
    const limiter = new RateLimiter(
      (c) => rates[c]!,
      () => true,
    );
    const answers = [
      limiter.allow('a', 'batch', T0),
      limiter.allow('a', 'batch', T0 + 10),
      // The batch class's own limit (2/s).
      limiter.allow('a', 'batch', T0 + 20),
      limiter.allow('a', 'standard', T0 + 30),
      limiter.allow('a', 'standard', T0 + 40),
      // The account's limit (4/s): two batch queries and two other calls spent it.
      limiter.allow('a', 'standard', T0 + 50),
      // Token calls keep their own limit.
      limiter.allow('a', 'token', T0 + 60),
      // Another account has its own budget.
      limiter.allow('b', 'standard', T0 + 70),
    ];
    expect(answers).toEqual([true, true, false, true, true, false, true, true]);
    // A second later the window is free again.
    expect(limiter.allow('a', 'standard', T0 + 1_000)).toBe(true);
  });

  it('without it, the batch queries have a budget of their own beside the account’s', () => {
    const limiter = new RateLimiter(
      (c) => rates[c]!,
      () => false,
    );
    const answers = [
      limiter.allow('a', 'batch', T0),
      limiter.allow('a', 'batch', T0 + 10),
      ...[1, 2, 3, 4].map((i) => limiter.allow('a', 'standard', T0 + 10 + i)),
      limiter.allow('a', 'standard', T0 + 20),
    ];
    expect(answers).toEqual([true, true, true, true, true, true, false]);
  });
});

describe('over HTTP (1 request per second per account)', () => {
  let shared: TestAccount;
  let separate: TestAccount;

  beforeAll(async () => {
    [shared, separate] = await Promise.all([newSandboxAccount(), newSandboxAccount()]);
    await changeSettings({ openId: shared.openId, oneBudget: true });
    await changeSettings({ openId: separate.openId, oneBudget: false });
  });

  afterAll(async () => {
    await Promise.all([shared.client.close(), separate.client.close()]);
  });

  /** A batch query, then at once a balance query: what the supplier answered to each. */
  async function batchThenBalance(account: TestAccount): Promise<number[]> {
    const token = await account.client.tokens.accessToken();
    const batch = await rawCall('shopping/order/getOrderDetailBatch', {
      token,
      body: { orderIds: ['SO-none'] },
    });
    const balance = await rawCall('shopping/pay/getBalance', { token });
    return [batch.body.code, balance.body.code];
  }

  it('one budget: the batch query spent the second, the balance query is refused', async () => {
    expect(await batchThenBalance(shared)).toEqual([
      SupplierCode.Success,
      SupplierCode.TooManyRequests,
    ]);
  });

  it('separate budgets: both are answered', async () => {
    expect(await batchThenBalance(separate)).toEqual([SupplierCode.Success, SupplierCode.Success]);
  });

  it('the setting is read back per account', async () => {
    expect((await changeSettings({ openId: shared.openId })).body).toMatchObject({
      openId: shared.openId,
      oneBudget: true,
    });
  });
});
