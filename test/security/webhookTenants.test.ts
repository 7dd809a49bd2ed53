/**
 * One account's webhook key reaches only that account's orders. The default account's order ids
 * are `order:<n>` and another account's `order:<account>:<n>`, so a push signed with the default
 * account's key for order `shop-a:<n>` names shop-a's order n by its id: the gateway checks the
 * run's SupplierAccount before it tells it anything. Real dev server, sandbox and gateway.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { beforeAll, describe, expect, it } from 'vitest';

import { DEFAULT_ACCOUNT, type Account } from '../../src/accounts/contract.js';
import { staticAccountDirectory } from '../../src/accounts/staticDirectory.js';
import { OrderClient } from '../../src/client/orderClient.js';
import { Stage, type OrderStatus } from '../../src/order/contract.js';
import { reachStage, useOrderHarness } from '../support/orders.js';
import { eventually } from '../support/eventually.js';
import { accountStats, newSandboxAccount } from '../support/sandbox.js';
import { orderNumber, usOrder } from '../supplier/orderHelpers.js';
import {
  hmac,
  inboxHolding,
  messageId,
  orderMessage,
  pushSigned,
  useTestGateway,
} from '../gateway/support.js';
import { actingCalls, newsSignals } from './support.js';

const SHOP_A = 'shop-a';
const SHOP_A_OPEN_ID = 'shop-a-signing-key';

const account = (id: string, extra: Partial<Account> = {}): Account => ({
  id,
  tier: 2,
  apiKey: `key-of-${id}-${process.pid}`,
  intakeTokenSha256: [],
  ...extra,
});
const directory = staticAccountDirectory([
  account(DEFAULT_ACCOUNT),
  account(SHOP_A, { openId: SHOP_A_OPEN_ID }),
]);

/** A push to `/webhooks/<account>`, signed with `openId`. */
async function pushTo(account: string, openId: string, message: unknown) {
  const body = JSON.stringify(message);
  const res = await fetch(`${gateway.url}/webhooks/${account}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', sign: hmac(openId, body) },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const h = useOrderHarness('sec-tenants', 10_000, { accounts: directory });
const gateway = useTestGateway(h, { accounts: directory });

describe("a push signed with the default account's key, naming shop-a's order by its id", () => {
  let handle: WorkflowHandle;
  let shopA: OrderStatus;

  beforeAll(async () => {
    // shop-a's calls go with its own key: the sandbox has that account.
    await newSandboxAccount(10_000, 2, directory.get(SHOP_A)!.apiKey);
    const submitted = await new OrderClient(h.client, h.queues, { accounts: directory }).submit({
      ...usOrder({ orderNumber: orderNumber('t88') }),
      fulfillment: { flow: 'B' },
      account: SHOP_A,
    });
    handle = h.client.workflow.getHandle(submitted.workflowId);
    shopA = await reachStage(handle, Stage.AWAITING_SHIPMENT);
  });

  it("reaches no order of shop-a: nothing told, the stage unchanged, nothing sent; it waits in the default account's inbox as an unknown order", async () => {
    const told = await newsSignals(handle);
    const before = await accountStats(h.account.openId);
    const id = messageId('cross-tenant');
    const answer = await pushSigned(
      gateway,
      h.account.openId,
      orderMessage(id, {
        orderNumber: `${SHOP_A}:${shopA.orderNumber}`,
        orderStatus: 'CANCELLED',
        trackNumber: 'CROSS-TENANT-1',
      }),
    );
    // For the default account there is no such order: answered as any unknown order is.
    expect(answer).toMatchObject({ status: 200, body: { outcome: 'held' } });
    const held = await inboxHolding(h, id);
    const entry = held.held.find((e) => e.event.messageId === id)!;
    expect(entry.reason).toMatch(/held by another account: not told/);
    expect(entry.unknownOrder).toBe(true);

    // shop-a's own push afterwards reaches it: once it shows, an earlier signal would show too.
    const own = await pushTo(
      SHOP_A,
      SHOP_A_OPEN_ID,
      orderMessage(messageId('own'), { orderNumber: shopA.orderNumber, trackNumber: 'OWN-1' }),
    );
    expect(own).toMatchObject({ status: 200, body: { outcome: 'delivered' } });
    await eventually(
      "shop-a's own push",
      () => newsSignals(handle),
      (n) => n > told,
    );
    const after = await reachStage(handle, Stage.AWAITING_SHIPMENT);
    expect(after.timeline.map((t) => t.stage)).not.toContain(Stage.CANCELLED);
    expect(await newsSignals(handle)).toBe(told + 1);
    expect(actingCalls(before, await accountStats(h.account.openId))).toEqual({});
  });
});
