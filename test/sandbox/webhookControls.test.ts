/**
 * The sandbox's webhook controls (tools/src/sandbox/routes/webhookControls.ts): a body it cannot
 * read or an account it does not know changes nothing; a topic closes only while enabled, and
 * opens again when registered; mute and unmute.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newSandboxAccount, type TestAccount } from '../support/sandbox.js';
import { control } from './controls.js';

interface View {
  muted: boolean;
  topics: Record<string, { enabled: boolean; closedReason?: string }>;
}

let account: TestAccount;

beforeAll(async () => {
  account = await newSandboxAccount();
});

afterAll(async () => {
  await account.client.close();
});

describe('sandbox webhook controls', () => {
  it('refuse a bad body (400) and an unknown account (404)', async () => {
    const bad = await control('POST', 'webhooks/close', { openId: account.openId, topic: 'x' });
    expect(bad.status).toBe(400);
    const unknown = await control('POST', 'webhooks/mute', { openId: 'nobody', muted: true });
    expect(unknown.status).toBe(404);
    const view = await control<View>('GET', `webhooks?openId=${account.openId}`);
    expect(view.body.muted).toBe(false);
  });

  it('close a topic only while it is enabled; registering opens it again', async () => {
    const before = await control('POST', 'webhooks/close', {
      openId: account.openId,
      topic: 'order',
    });
    expect(before.status).toBe(409);

    await account.client.api.setWebhooks({
      order: { type: 'ENABLE', callbackUrls: ['http://127.0.0.1:9/hook'] },
    });
    const closed = await control<View>('POST', 'webhooks/close', {
      openId: account.openId,
      topic: 'order',
    });
    expect(closed.status).toBe(200);
    expect(closed.body.topics['order']).toMatchObject({ enabled: false });
    expect(closed.body.topics['order']?.closedReason).toMatch(/closed at/);

    await account.client.api.setWebhooks({
      order: { type: 'ENABLE', callbackUrls: ['http://127.0.0.1:9/hook'] },
    });
    const view = await control<View>('GET', `webhooks?openId=${account.openId}`);
    expect(view.body.topics['order']).toMatchObject({ enabled: true });
  });

  it('mute and unmute the account', async () => {
    const muted = await control<View>('POST', 'webhooks/mute', {
      openId: account.openId,
      muted: true,
    });
    expect(muted.body.muted).toBe(true);
    const unmuted = await control<View>('POST', 'webhooks/mute', {
      openId: account.openId,
      muted: false,
    });
    expect(unmuted.body.muted).toBe(false);
  });
});
