/**
 * Door 4 of issue 28: the supplierSession workflow's history held the account's access and refresh
 * tokens and its openId (the webhook signing key), readable by anyone who may use the payload codec
 * (the Temporal UI through the gateway's codec server). Now the session's activities seal them with
 * a key derived for tokens only, which the codec never uses: decoding the whole history with the
 * codec shows no token. A session of an earlier release, holding tokens in clear, still hands them
 * out.
 */
import { randomBytes } from 'node:crypto';

import type { Payload } from '@temporalio/common';
import { describe, expect, it } from 'vitest';

import { supplierSessionId } from '../../src/session/contract.js';
import { ensureSession, SessionTokenSource } from '../../src/session/sessionTokens.js';
import { TokenSeal } from '../../src/session/tokenSeal.js';
import { EncryptionCodec } from '../../src/temporal/encryption.js';
import { queuePrefix } from '../../src/temporal/taskQueues.js';
import { expireTokens } from '../sandbox/controls.js';
import { useOrderHarness } from '../support/orders.js';

const h = useOrderHarness('tokens-in-history', undefined, {
  encryptionKey: { id: 'tokens-test', key: randomBytes(32) },
});

/** Every payload of a history (events, failures' encoded attributes), wherever it sits. */
function payloadsIn(value: unknown, found: Payload[] = []): Payload[] {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return found;
  const o = value as Record<string, unknown>;
  if (o['data'] instanceof Uint8Array && typeof o['metadata'] === 'object') {
    found.push(o);
    return found;
  }
  for (const v of Object.values(o)) payloadsIn(v, found);
  return found;
}

/** The history as the codec server would show it: every payload decoded with the codec. */
async function readableHistory(workflowId: string): Promise<string> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  const decoded = await h.codec!.decode(payloadsIn(history));
  return decoded.map((p) => Buffer.from(p.data ?? new Uint8Array()).toString('utf8')).join('\n');
}

/** The decoded arguments of the session's refreshSessionToken activities. */
async function refreshInputs(workflowId: string): Promise<string[]> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  const scheduled = (history.events ?? [])
    .map((e) => e.activityTaskScheduledEventAttributes)
    .filter((a) => a?.activityType?.name === 'refreshSessionToken');
  const decoded = await h.codec!.decode(scheduled.flatMap((a) => a?.input?.payloads ?? []));
  return decoded.map((p) => Buffer.from(p.data ?? new Uint8Array()).toString('utf8'));
}

describe('the account session', () => {
  it('refuses a codec holder the tokens: no history shows a token or the openId in clear', async () => {
    const sessionId = supplierSessionId(queuePrefix(h.queues));
    const process = new SessionTokenSource(h.client, h.queues);
    const first = await process.accessToken();
    expect(await process.openId()).toBe(h.account.openId);
    // A refresh: the refresh token goes back to the supplier through the session's activity.
    await expireTokens(h.account.openId);
    process.invalidate(first);
    const renewed = await process.accessToken();
    expect(renewed).not.toBe(first);

    const text = await readableHistory(sessionId);
    for (const secret of [first, renewed, h.account.openId]) {
      expect(text.includes(secret), 'a token in the decoded history').toBe(false);
    }
    // Every token field, and the refresh activity's argument, is sealed.
    const fields = [...text.matchAll(/"(accessToken|refreshToken|openId|rejected)":"([^"]*)"/g)];
    expect(fields.length).toBeGreaterThan(0);
    for (const [, name, value] of fields) expect(value, name).toMatch(/^sealed:v1:/);
    // The refresh token, as refreshSessionToken was given it.
    const refreshArgs = await refreshInputs(sessionId);
    expect(refreshArgs.length).toBeGreaterThan(0);
    for (const arg of refreshArgs) expect(arg).toMatch(/^"sealed:v1:tokens-test:/);
  });

  it('still hands out tokens a session of an earlier release holds in clear', async () => {
    const account = { id: 'legacy' };
    const now = Date.now();
    await ensureSession(h.client, h.queues, account, {
      tokens: {
        accessToken: 'clear-access-token',
        refreshToken: 'clear-refresh-token',
        openId: 'clear-open-id',
        accessExpiresAt: now + 3_600_000,
        refreshExpiresAt: now + 86_400_000,
        obtainedAt: now,
      },
    });
    const process = new SessionTokenSource(h.client, h.queues, { account });
    expect(await process.accessToken()).toBe('clear-access-token');
    expect(await process.openId()).toBe('clear-open-id');
  });
});

describe('the token seal', () => {
  const key = { id: 'k1', key: randomBytes(32) };
  const seal = new TokenSeal(new EncryptionCodec({ current: key }));

  it('gives one sealed string per token (the session compares them) and opens it', () => {
    const sealed = seal.seal('an-access-token');
    expect(sealed).toMatch(/^sealed:v1:k1:/);
    expect(sealed).not.toContain('an-access-token');
    expect(seal.seal('an-access-token')).toBe(sealed);
    expect(seal.seal('another-token')).not.toBe(sealed);
    expect(seal.open(sealed)).toBe('an-access-token');
    expect(seal.open('a-token-in-clear')).toBe('a-token-in-clear');
  });

  it('is not the payload codec: decoding a sealed token with the codec shows no token', async () => {
    const codec = new EncryptionCodec({ current: key });
    const sealed = seal.seal('an-access-token');
    const [payload] = await codec.decode([{ metadata: {}, data: Buffer.from(sealed) }]);
    expect(Buffer.from(payload!.data!).toString()).toBe(sealed);
  });

  it('opens after a rotation with the earlier key, and refuses an altered one', () => {
    const rotated = new TokenSeal(
      new EncryptionCodec({ current: { id: 'k2', key: randomBytes(32) }, previous: [key] }),
    );
    const sealed = seal.seal('an-access-token');
    expect(rotated.open(sealed)).toBe('an-access-token');
    expect(rotated.seal('an-access-token')).toMatch(/^sealed:v1:k2:/);
    const altered = sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BB' : 'AA');
    expect(() => seal.open(altered)).toThrow(/does not open/);
  });
});
