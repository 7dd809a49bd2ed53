/**
 * The pieces of the budget per account that need no server: the queue config from a directory,
 * and what a worker holds per account as the directory changes.
 */
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';

import { UNKNOWN_ACCOUNT_FAILURE, type Account } from '../../src/accounts/contract.js';
import { PerAccount } from '../../src/accounts/perAccount.js';
import { supplierBudget } from '../../src/accounts/supplierBudget.js';
import { staticAccountDirectory } from '../../src/accounts/staticDirectory.js';

const account = (id: string, tier: Account['tier'], apiKey = `key-${id}`): Account => ({
  id,
  tier,
  apiKey,
  intakeTokenSha256: [],
});

describe('supplierBudget', () => {
  it('the default account alone: its rate for the queue and no per-key limit, as before accounts', () => {
    expect(supplierBudget(4, [])).toEqual({ queuePerSecond: 4 });
    expect(supplierBudget(4, [account('default', 1)])).toEqual({ queuePerSecond: 4 });
  });

  it('with other accounts: the sum of the tiers, and 1/s per unit of weight for each key', () => {
    expect(supplierBudget(1, [account('a', 2), account('b', 6)])).toEqual({
      queuePerSecond: 9,
      keyPerSecondPerWeight: 1,
    });
  });
});

describe('PerAccount', () => {
  it('makes an account once, again when the directory changes it, and refuses one it lacks', async () => {
    const directory = staticAccountDirectory([account('a', 1)]);
    const made: string[] = [];
    const closed: string[] = [];
    const per = new PerAccount(directory, 'the default', (a) => {
      const value = `${a.id}@${a.tier}`;
      made.push(value);
      return { value, close: () => Promise.resolve(void closed.push(value)) };
    });
    expect(per.of('default')).toBe('the default');
    expect(per.of('a')).toBe('a@1');
    expect(per.of('a')).toBe('a@1');
    directory.set(account('a', 4));
    expect(per.of('a')).toBe('a@4');
    expect(made).toEqual(['a@1', 'a@4']);

    directory.remove('a');
    let refused: unknown;
    try {
      per.of('a');
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(ApplicationFailure);
    expect((refused as ApplicationFailure).type).toBe(UNKNOWN_ACCOUNT_FAILURE);
    expect((refused as ApplicationFailure).nonRetryable).toBe(true);
    expect((refused as ApplicationFailure).message).toBe(
      'no supplier account "a" (add it with `dropflow account add a`)',
    );
    // Nothing of the key in what the activity fails with.
    expect(JSON.stringify((refused as ApplicationFailure).details)).not.toContain('key-a');
    await per.close();
    expect(closed).toEqual(expect.arrayContaining(['a@1', 'a@4']));
  });

  it('a tier change alone re-paces what it holds; any other change makes it again', async () => {
    const directory = staticAccountDirectory([account('a', 1)]);
    const made: string[] = [];
    const retiered: number[] = [];
    const per = new PerAccount(directory, 'the default', (a) => {
      const value = `${a.id}:${a.apiKey}`;
      made.push(value);
      return {
        value,
        close: () => Promise.resolve(),
        retier: (tier) => void retiered.push(tier),
      };
    });
    expect(per.of('a')).toBe('a:key-a');
    directory.set(account('a', 6));
    per.follow();
    expect(per.of('a')).toBe('a:key-a');
    expect(retiered).toEqual([6]);
    directory.set(account('a', 6, 'rotated'));
    per.follow();
    expect(per.of('a')).toBe('a:rotated');
    expect(made).toEqual(['a:key-a', 'a:rotated']);
    await per.close();
  });
});
