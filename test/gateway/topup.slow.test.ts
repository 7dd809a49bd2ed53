/**
 * The sandbox's top-up control (`POST /__sandbox/topup`, `dropflow sandbox topup`): a paid makeup
 * order that raises the balance and pushes the makeup webhook to the account's callback, so an
 * order waiting in AWAITING_FUNDS moves on as it would after a merchant's top-up.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';

import { beforeAll, describe, expect, it } from 'vitest';

import { Stage } from '../../src/order/contract.js';
import { callbackUrlFor, enableWebhooks } from '../../src/gateway/registration.js';
import { useOrderHarness, reachStage, startOrder, validOrder } from '../support/orders.js';
import { newSandboxAccount, sandboxUrl } from '../support/sandbox.js';
import { usOrder } from '../supplier/orderHelpers.js';
import { useTestGateway } from './support.js';

async function topUp(body: unknown) {
  const res = await fetch(`${sandboxUrl()}/__sandbox/topup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('POST /__sandbox/topup', () => {
  it('raises the balance by the amount; without a makeup callback nothing is pushed', async () => {
    const account = await newSandboxAccount(20);
    const answer = await topUp({ openId: account.openId, amount: 12.5 });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      openId: account.openId,
      makeupOrderId: expect.stringMatching(/^BT\d+/) as unknown,
      amount: 12.5,
      balance: { amount: 32.5 },
      webhookMessageIds: [],
    });
    expect((await account.client.api.getBalance({})).amount).toBe(32.5);
  });

  it('refuses an amount that is not positive, and an unknown account', async () => {
    expect((await topUp({ amount: 0 })).status).toBe(400);
    expect((await topUp({ amount: 10, openId: 'no-such-account' })).status).toBe(404);
  });
});

describe('an order waiting for funds, and a top-up through `dropflow sandbox topup`', () => {
  // No money: payments meet 1604000.
  const h = useOrderHarness('topup', 0);
  const gateway = useTestGateway(h);
  beforeAll(async () => {
    await enableWebhooks(h.account.client, callbackUrlFor(gateway.url, { allowLocal: true }));
  });

  it('moves on once the top-up is paid and its webhook pushed', async () => {
    const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B' } });
    const handle = await startOrder(h, input);
    const waiting = await reachStage(handle, Stage.AWAITING_FUNDS);
    expect(waiting.error).toMatchObject({ code: 1604000 });

    const cli = spawn(
      process.execPath,
      [
        'bin/dropflow.js',
        'sandbox',
        'topup',
        '--amount',
        '1000',
        '--open-id',
        h.account.openId,
        '--url',
        sandboxUrl(),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'warn' } },
    );
    let stdout = '';
    let stderr = '';
    cli.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    cli.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(cli, 'exit')) as [number | null];
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(
      new RegExp(
        `^topup BT\\d+: \\+1000 to account ${h.account.openId}; balance 1000; makeup webhook pushed \\(CREATED, PAID\\)\\n$`,
      ),
    );

    // Only the makeup webhook tells the account's funds watcher (its periodic check is 30 min away).
    const paid = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    expect(paid.error).toBeUndefined();
  });
});
