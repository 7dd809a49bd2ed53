/**
 * Per-account sandbox settings (POST/GET /__sandbox/settings) and the batch-query lag they switch
 * on: a new order is not visible to the order queries until it is older than the lag, yet it
 * exists (a second create is refused). Exact timing rules: test/sandbox/lag.slow.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { SupplierCode } from '../../src/supplier/errors.js';
import { changeSettings, readSettings } from '../sandbox/controls.js';
import { eventually } from '../support/eventually.js';
import { accountStats, sandboxAccountsForFile, type TestAccount } from '../support/sandbox.js';
import { usOrder } from './orderHelpers.js';

const HOUR_MS = 60 * 60 * 1_000;

let account: TestAccount;
let other: TestAccount;

sandboxAccountsForFile(2, ([a, b]) => {
  account = a!;
  other = b!;
});

describe('settings', () => {
  it('an account follows the defaults until it has its own; another account is not affected', async () => {
    const defaults = (await readSettings()).body;
    expect(defaults).toEqual({
      batchLagMs: expect.any(Number) as number,
      disputeLagMs: expect.any(Number) as number,
      payWindowSeconds: expect.any(Number) as number,
      tokenIntervalSeconds: expect.any(Number) as number,
      oneBudget: expect.any(Boolean) as boolean,
      ratePerSecond: expect.any(Number) as number,
    });
    expect((await readSettings(account.openId)).body).toEqual({
      openId: account.openId,
      ...defaults,
    });

    const changed = await changeSettings({
      openId: account.openId,
      batchLagMs: 2_500,
      payWindowSeconds: 90,
    });
    expect(changed).toEqual({
      status: 200,
      body: { ...defaults, openId: account.openId, batchLagMs: 2_500, payWindowSeconds: 90 },
    });
    // Only the named setting changes.
    const lagOnly = await changeSettings({ openId: account.openId, batchLagMs: 100 });
    expect(lagOnly.body).toMatchObject({ batchLagMs: 100, payWindowSeconds: 90 });
    expect((await readSettings(other.openId)).body).toEqual({ openId: other.openId, ...defaults });
    expect((await readSettings()).body).toEqual(defaults);

    const reset = await changeSettings({
      openId: account.openId,
      batchLagMs: null,
      payWindowSeconds: null,
    });
    expect(reset.body).toEqual({ openId: account.openId, ...defaults });
  });

  it('refuses invalid settings (400) and unknown accounts (404)', async () => {
    expect((await changeSettings({ openId: account.openId, batchLagMs: -1 })).status).toBe(400);
    expect((await changeSettings({ openId: account.openId, payWindowSeconds: 0 })).status).toBe(
      400,
    );
    expect((await changeSettings({ batchLagMs: null })).status).toBe(400);
    expect((await changeSettings({ openId: 'no-such-account', batchLagMs: 1 })).status).toBe(404);
    expect((await readSettings('no-such-account')).status).toBe(404);
  });
});

describe('batch-query lag', () => {
  it('a new order is absent from batch, detail and list while it is younger than the lag, yet cannot be created twice', async () => {
    const { client, openId } = account;
    await changeSettings({ openId, batchLagMs: HOUR_MS });
    const body = usOrder();
    const created = await client.api.createOrderV3(body);
    const orderId = created.orderId!;

    expect(await client.api.getOrderDetailBatch({ orderIds: [orderId] })).toEqual([]);
    await expect(client.api.getOrderDetail({ orderId })).rejects.toMatchObject({
      code: SupplierCode.ParamError,
    });
    const listed = await client.api.listOrders({ status: 'CREATED', orderIds: [orderId] });
    expect(listed.total).toBe(0);
    // Another account sees its own orders at once.
    const mine = await other.client.api.createOrderV3(usOrder());
    const seen = await other.client.api.getOrderDetailBatch({ orderIds: [mine.orderId!] });
    expect(seen.map((o) => o.orderStatus)).toEqual(['CREATED']);

    await expect(client.api.createOrderV3(body)).rejects.toMatchObject({
      code: SupplierCode.DuplicateOrder,
    });
    const stats = await accountStats(openId);
    expect(stats.ordersCreated).toBe(1);
    expect(stats.duplicateCreatesRefused).toBe(1);

    await changeSettings({ openId, batchLagMs: null });
    const now = await client.api.getOrderDetailBatch({ orderIds: [orderId] });
    expect(now.map((o) => o.orderStatus)).toEqual(['CREATED']);
  });

  it('with a short lag the order shows up by itself once it is older than the lag', async () => {
    const { client, openId } = account;
    await changeSettings({ openId, batchLagMs: 1_000 });
    const created = await client.api.createOrderV3(usOrder());
    const shown = await eventually(
      'the order in the batch query',
      () => client.api.getOrderDetailBatch({ orderIds: [created.orderId!] }),
      (list) => list.length === 1,
    );
    expect(shown[0]).toMatchObject({ svcOrderId: created.orderId, orderStatus: 'CREATED' });
    await changeSettings({ openId, batchLagMs: null });
  });
});
