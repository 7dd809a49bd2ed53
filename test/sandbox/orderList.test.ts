/**
 * `GET /__sandbox/orders` (tools/src/sandbox/routes/controls.ts): the sandbox's orders, briefly,
 * for a tool in another process — whose each is, its number, whether it is paid.
 */
import { describe, expect, it } from 'vitest';
import { SandboxControls } from '../../tools/src/localStack/sandboxControls.js';
import { sandboxAccountsForFile, type TestAccount } from '../support/sandbox.js';
import { payOrder, usOrder } from '../supplier/orderHelpers.js';
import { control } from './controls.js';

let account: TestAccount;
let other: TestAccount;

sandboxAccountsForFile(2, ([a, b]) => {
  account = a!;
  other = b!;
});

describe('the sandbox order list', () => {
  it("names each order's account and number, and whether it is paid", async () => {
    const unpaid = usOrder();
    const paid = usOrder();
    const theirs = usOrder();
    await account.client.api.createOrderV3(unpaid);
    const created = await account.client.api.createOrderV3(paid);
    await payOrder(account.client, created.orderId!);
    await other.client.api.createOrderV3(theirs);

    const all = await SandboxControls.orders(account.url);
    expect(all).toContainEqual({
      openId: account.openId,
      orderNumber: unpaid.orderNumber,
      paid: false,
    });
    expect(all).toContainEqual({
      openId: account.openId,
      orderNumber: paid.orderNumber,
      paid: true,
    });
    expect(all).toContainEqual({
      openId: other.openId,
      orderNumber: theirs.orderNumber,
      paid: false,
    });

    const mine = await control<{ orders: { openId: string; orderNumber: string }[] }>(
      'GET',
      `orders?openId=${account.openId}`,
    );
    expect(mine.status).toBe(200);
    expect(mine.body.orders.map((o) => o.orderNumber).sort()).toEqual(
      [unpaid.orderNumber, paid.orderNumber].sort(),
    );
  });

  it('answers 404 for an account it does not know', async () => {
    const unknown = await control('GET', 'orders?openId=nobody');
    expect(unknown.status).toBe(404);
  });
});
