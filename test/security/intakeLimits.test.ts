/**
 * Door: the order intake's rate. One store token (leaked, or a runaway client) must not flood the
 * intake, and the tokens that share an account must not, together, crowd out the other accounts:
 * beyond its limit per token and per account a request answers 429 with Retry-After, on every
 * intake route, before anything reaches Temporal. A tenant cannot spend another's account limit.
 */
import { describe, expect, it } from 'vitest';

import type { Account } from '../../src/accounts/contract.js';
import { intakeTokenHash } from '../../src/accounts/registryFile.js';
import { staticAccountDirectory } from '../../src/accounts/staticDirectory.js';
import { useIntakeGateway } from './intakeGateway.js';

const PER_TOKEN = 3;
const PER_ACCOUNT = 5;

const token = (name: string) => `${name}-intake-limits-token-0123456789`;
const account = (id: string, ...tokens: string[]): Account => ({
  id,
  tier: 1,
  apiKey: `key-of-${id}`,
  intakeTokenSha256: tokens.map(intakeTokenHash),
});

const g = useIntakeGateway('sec-limits', {
  accounts: staticAccountDirectory([
    account('flood-a', token('a')),
    account('shared-b', token('b1'), token('b2')),
    account('reads-c', token('c')),
    account('quiet-d', token('d')),
    account('victim-e', token('e')),
    account('noisy-f', token('f1'), token('f2')),
  ]),
  extra: { intakeLimits: { perToken: PER_TOKEN, perAccount: PER_ACCOUNT, windowMs: 60_000 } },
});

/** A submit the intake refuses as invalid (400): nothing would start even if it were let in. */
async function submit(bearer: string, accountId: string) {
  const res = await fetch(`${g.gateway.url}/v1/orders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ account: accountId, orderNumber: 'LIMIT-1' }),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
}

async function times<T>(n: number, call: () => Promise<T>): Promise<T[]> {
  const answers: T[] = [];
  for (let i = 0; i < n; i++) answers.push(await call());
  return answers;
}

describe('order intake under a flood', () => {
  it('one store token that floods POST /v1/orders gets 429 with Retry-After', async () => {
    const within = await times(PER_TOKEN, () => submit(token('a'), 'flood-a'));
    expect(within.map((a) => a.status)).toEqual(Array(PER_TOKEN).fill(400));
    const over = await submit(token('a'), 'flood-a');
    expect(over.status).toBe(429);
    expect(Number(over.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(over.retryAfter)).toBeLessThanOrEqual(60);
    expect(over.body).toMatchObject({ error: 'too many requests' });
    expect((over.body as { message: string }).message).toContain('per token');
  });

  it('tokens that share an account are limited together, per account', async () => {
    await times(PER_TOKEN, () => submit(token('b1'), 'shared-b'));
    const second = await times(PER_ACCOUNT - PER_TOKEN, () => submit(token('b2'), 'shared-b'));
    expect(second.map((a) => a.status)).toEqual(Array(PER_ACCOUNT - PER_TOKEN).fill(400));
    // b2 is within its own limit; the account is not.
    const over = await submit(token('b2'), 'shared-b');
    expect(over.status).toBe(429);
    expect(Number(over.retryAfter)).toBeGreaterThanOrEqual(1);
    expect((over.body as { message: string }).message).toContain('per account');
  });

  it('status reads (GET /v1/orders/<n>) are limited too', async () => {
    const get = async () => {
      const res = await fetch(`${g.gateway.url}/v1/orders/${'x'.repeat(51)}`, {
        headers: { authorization: `Bearer ${token('c')}` },
      });
      return { status: res.status, retryAfter: res.headers.get('retry-after') };
    };
    const within = await times(PER_TOKEN, get);
    expect(within.map((a) => a.status)).toEqual(Array(PER_TOKEN).fill(400));
    const over = await get();
    expect(over.status).toBe(429);
    expect(Number(over.retryAfter)).toBeGreaterThanOrEqual(1);
  });

  it("a stranger's requests count against no one's limit", async () => {
    const strangers = await times(PER_ACCOUNT + 1, () =>
      submit('not-a-token-of-anyone-0123', 'quiet-d'),
    );
    expect(strangers.map((a) => a.status)).toEqual(Array(PER_ACCOUNT + 1).fill(401));
    expect((await submit(token('d'), 'quiet-d')).status).toBe(400);
  });

  it("another tenant's requests naming an account spend nothing of its limit", async () => {
    const aimed = [
      ...(await times(PER_TOKEN, () => submit(token('f1'), 'victim-e'))),
      ...(await times(PER_TOKEN, () => submit(token('f2'), 'victim-e'))),
    ];
    expect(aimed).toHaveLength(PER_ACCOUNT + 1);
    expect(aimed.map((a) => a.status)).toEqual(Array(PER_ACCOUNT + 1).fill(403));
    expect((await submit(token('e'), 'victim-e')).status).toBe(400);
  });
});
