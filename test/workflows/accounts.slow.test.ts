/**
 * Accounts as data through workflows (issue 17): one worker set serves two supplier accounts.
 * Each order runs with its own SupplierAccount, workflow id and checkout coordinator; the same
 * orderNumber is an order in each account; the worker follows its directory (a new account's
 * singletons, a tier change) without a restart; `/webhooks/<account>` verifies with the account's
 * key and routes to its orders and inbox. (Supplier calls of both accounts go to the harness's
 * sandbox account here: per-account supplier clients are not this file's subject.)
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { beforeAll, describe, expect, it } from 'vitest';

import { DEFAULT_ACCOUNT, SUPPLIER_TIER_MEMO, type Account } from '../../src/accounts/contract.js';
import { staticAccountDirectory } from '../../src/accounts/staticDirectory.js';
import { ensureAccountSingletons } from '../../src/singletons.js';
import { checkoutStatusQuery, checkoutWorkflowId } from '../../src/checkout/contract.js';
import { OrderClient } from '../../src/client/orderClient.js';
import { webhookInboxId, inboxQuery, type InboxView } from '../../src/inbox/contract.js';
import { orderWorkflowId, Stage } from '../../src/order/contract.js';
import { supplierSessionId } from '../../src/session/contract.js';
import { SupplierAccount } from '../../src/temporal/searchAttributes.js';
import { queuePrefix, taskQueues } from '../../src/temporal/taskQueues.js';
import { trackingSweeperId } from '../../src/tracking/contract.js';
import { eventually } from '../support/eventually.js';
import { newSandboxAccount } from '../support/sandbox.js';
import { reachStage, useOrderHarness } from '../support/orders.js';
import { orderNumber, usOrder } from '../supplier/orderHelpers.js';
import { hmac, messageId, orderMessage, useTestGateway, type Answer } from '../gateway/support.js';

/** Long enough that only the batch size closes a batch: two orders of one account. */
const NEVER = 600_000;
const ACME_OPEN_ID = 'acme-signing-key';

function account(id: string, tier: Account['tier'], extra: Partial<Account> = {}): Account {
  return { id, tier, apiKey: `key-of-${id}`, intakeTokenSha256: [], ...extra };
}

const directory = staticAccountDirectory([
  account(DEFAULT_ACCOUNT, 1),
  account('acme', 2, { openId: ACME_OPEN_ID }),
]);

const h = useOrderHarness('accounts', 10_000, {
  accounts: directory,
  checkout: { quietMs: NEVER, maxWaitMs: NEVER, maxBatch: 2 },
  singletons: { trackingSweeper: { everySeconds: 3_600 } },
});
const gateway = useTestGateway(h, { accounts: directory });

// acme's calls go with acme's own key: the sandbox has that account (the default one is the harness's).
beforeAll(async () => {
  await newSandboxAccount(10_000, 2, 'key-of-acme');
});

const orders = () => new OrderClient(h.client, h.queues, { accounts: directory });
const scope = (id: string) =>
  id === DEFAULT_ACCOUNT ? queuePrefix(h.queues) : `${queuePrefix(h.queues)}/${id}`;
const coordinatorOf = (id: string) => h.client.workflow.getHandle(checkoutWorkflowId(scope(id)));
const sweeperOf = (id: string) => h.client.workflow.getHandle(trackingSweeperId(scope(id)));

function flowB(tag: string, accountId?: string): unknown {
  return {
    ...usOrder({ orderNumber: orderNumber(tag) }),
    fulfillment: { flow: 'B' },
    ...(accountId !== undefined && { account: accountId }),
  };
}

async function accountOf(client: Client, workflowId: string) {
  const d = await client.workflow.getHandle(workflowId).describe();
  return {
    account: d.typedSearchAttributes.get(SupplierAccount),
    tier: d.memo?.[SUPPLIER_TIER_MEMO],
  };
}

describe('two supplier accounts on one worker', () => {
  it("each order runs with its own SupplierAccount, id and coordinator: a coordinator batches only its account's orders", async () => {
    const client = orders();
    const submitted = await Promise.all([
      client.submit(flowB('dflt-1')),
      client.submit(flowB('dflt-2')),
      client.submit(flowB('acme-1', 'acme')),
      client.submit(flowB('acme-2', 'acme')),
    ]);
    expect(submitted.map((s) => s.workflowId.split(':').slice(0, 2).join(':'))).toEqual([
      `order:${submitted[0].orderNumber}`,
      `order:${submitted[1].orderNumber}`,
      'order:acme',
      'order:acme',
    ]);
    for (const s of submitted) {
      await reachStage(h.client.workflow.getHandle(s.workflowId), Stage.AWAITING_SHIPMENT);
    }
    expect(await accountOf(h.client, submitted[0].workflowId)).toEqual({
      account: 'default',
      tier: 1,
    });
    expect(await accountOf(h.client, submitted[2].workflowId)).toEqual({
      account: 'acme',
      tier: 2,
    });

    // maxBatch 2: had one coordinator taken all four orders, it would have paid two batches.
    for (const id of [DEFAULT_ACCOUNT, 'acme']) {
      const view = await coordinatorOf(id).query(checkoutStatusQuery);
      expect({ id, batches: view.batchesDone, paid: view.ordersPaid }).toEqual({
        id,
        batches: 1,
        paid: 2,
      });
      expect((await accountOf(h.client, coordinatorOf(id).workflowId)).account).toBe(id);
      expect((await accountOf(h.client, sweeperOf(id).workflowId)).account).toBe(id);
    }
    // The acme client reads acme's order by its number; the default client does not see it.
    const acmeNumber = submitted[2].orderNumber;
    expect((await client.forAccount('acme').status(acmeNumber)).stage).not.toBe(Stage.RECEIVED);
    await expect(client.status(acmeNumber)).rejects.toThrow(/no order/);
  });

  it('the same orderNumber in two accounts is two orders, each submitted once', async () => {
    // On queues no worker polls: only the starts are looked at, nothing reaches the supplier.
    const idle = new OrderClient(h.client, taskQueues(`idle-${queuePrefix(h.queues)}`), {
      accounts: directory,
    });
    const number = orderNumber('same');
    const body = { ...usOrder({ orderNumber: number }), fulfillment: { flow: 'B' } };
    const inDefault = await idle.submit(body);
    const inAcme = await idle.submit({ ...body, account: 'acme' });
    try {
      expect(inDefault).toMatchObject({ outcome: 'started', workflowId: `order:${number}` });
      expect(inAcme).toMatchObject({ outcome: 'started', workflowId: `order:acme:${number}` });
      expect((await idle.submit({ ...body, account: 'acme' })).outcome).toBe('existing');
      expect((await idle.submit({ ...body, account: 'default' })).outcome).toBe('existing');
      expect(await accountOf(h.client, inAcme.workflowId)).toEqual({ account: 'acme', tier: 2 });
    } finally {
      for (const id of [inDefault.workflowId, inAcme.workflowId]) {
        await h.client.workflow.getHandle(id).terminate('test: starts only');
      }
    }
  });

  it("a new account gets its singletons and a tier change reaches its coordinator and sweeper, without a restart; a removed account's are left to drain", async () => {
    const workers = h.workers;
    directory.set(account('globex', 4));
    await eventually(
      'globex coordinator and sweeper started with its account and tier',
      async () =>
        Promise.all(
          [coordinatorOf('globex'), sweeperOf('globex')].map((w) =>
            accountOf(h.client, w.workflowId).catch(() => undefined),
          ),
        ),
      (seen) => seen.every((s) => s?.account === 'globex' && s.tier === 4),
    );
    const runs = await Promise.all(
      [coordinatorOf('acme'), sweeperOf('acme')].map(async (w) => (await w.describe()).runId),
    );

    directory.set(account('acme', 6, { openId: ACME_OPEN_ID }));
    await eventually(
      'acme coordinator and sweeper at tier 6',
      () => Promise.all([coordinatorOf('acme'), sweeperOf('acme')].map((w) => w.describe())),
      (described) =>
        described.every((d) => d.memo?.[SUPPLIER_TIER_MEMO] === 6 && d.status.name === 'RUNNING'),
    );
    // The same runs took it (no new start), on the same workers.
    const after = await Promise.all(
      [coordinatorOf('acme'), sweeperOf('acme')].map(async (w) => (await w.describe()).runId),
    );
    expect(after).toEqual(runs);
    expect(h.workers).toBe(workers);

    directory.remove('globex');
    expect((await coordinatorOf('globex').describe()).status.name).toBe('RUNNING');
  });

  it("on a fleet of two, a tier-1 account's coordinator waits two of its own slots for the next order; a tier-6 account's keeps the configured quiet period", async () => {
    const configured = { ...(await coordinatorOf('acme').query(checkoutStatusQuery)).settings };
    const singletons = {
      queues: h.queues,
      checkout: { ...configured, quietMs: 2_000 },
      fleetSize: 2,
    };
    const ids = ['slow', 'fast'].map((id) => checkoutWorkflowId(scope(id)));
    try {
      await ensureAccountSingletons(h.client, account('slow', 1), singletons);
      await ensureAccountSingletons(h.client, account('fast', 6), singletons);
      const [slow, fast] = await Promise.all(
        ids.map((id) => h.client.workflow.getHandle(id).query(checkoutStatusQuery)),
      );
      // Its process's own slots come every 2 × 1 050 ms: one missed slot must not close a batch.
      expect(slow?.settings.quietMs).toBe(4_200);
      expect(fast?.settings.quietMs).toBe(2_000);
    } finally {
      await Promise.all(
        ids.map((id) => h.client.workflow.getHandle(id).terminate('test: settings only')),
      );
    }
  });

  it('ensuring a session starts it once with its account', async () => {
    const idle = taskQueues(`idle-session-${queuePrefix(h.queues)}`);
    const acme = directory.get('acme')!;
    const singletons = {
      queues: idle,
      checkout: (await coordinatorOf('acme').query(checkoutStatusQuery)).settings,
      session: {},
    };
    await Promise.all([1, 2].map(() => ensureAccountSingletons(h.client, acme, singletons)));
    const id = supplierSessionId(`${queuePrefix(idle)}/acme`);
    try {
      expect((await accountOf(h.client, id)).account).toBe('acme');
    } finally {
      await Promise.all(
        [id, checkoutWorkflowId(`${queuePrefix(idle)}/acme`)].map((w) =>
          h.client.workflow.getHandle(w).terminate('test: starts only'),
        ),
      );
    }
  });
});

describe('webhooks per account', () => {
  const post = async (path: string, body: string, sign?: string): Promise<Answer> => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (sign !== undefined) headers['sign'] = sign;
    const res = await fetch(`${gateway.url}${path}`, { method: 'POST', headers, body });
    const text = await res.text();
    return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Answer['body']) };
  };
  const signed = (path: string, openId: string, message: unknown) => {
    const body = JSON.stringify(message);
    return post(path, body, hmac(openId, body));
  };
  const inboxOf = async (id: string): Promise<InboxView | undefined> => {
    try {
      return await h.client.workflow.getHandle(webhookInboxId(scope(id))).query(inboxQuery);
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return undefined;
      throw err;
    }
  };

  it("/webhooks/<account> verifies with that account's key and holds what it cannot route in that account's inbox", async () => {
    const id = messageId('acme-held');
    const message = orderMessage(id, {
      orderNumber: orderNumber('nowhere'),
      orderStatus: 'SHIPPED',
    });
    const answer = await signed('/webhooks/acme', ACME_OPEN_ID, message);
    expect(answer).toMatchObject({ status: 200, body: { outcome: 'held' } });
    const acme = await inboxOf('acme');
    expect(acme?.held.map((e) => e.event.messageId)).toContain(id);
    expect((await accountOf(h.client, webhookInboxId(scope('acme')))).account).toBe('acme');
    const dflt = await inboxOf(DEFAULT_ACCOUNT);
    expect(dflt?.held.map((e) => e.event.messageId) ?? []).not.toContain(id);
  });

  it("routes an order message to that account's order of the orderNumber, not the default account's", async () => {
    const submitted = await orders().submit(flowB('hook', 'acme'));
    const handle = h.client.workflow.getHandle(submitted.workflowId);
    // Created, it waits for a second acme order to fill a batch: enough to be told news.
    await reachStage(handle, Stage.CREATED);
    const message = orderMessage(messageId('acme-order'), {
      orderNumber: submitted.orderNumber,
      orderStatus: 'SHIPPED',
    });
    const answer = await signed('/webhooks/acme', ACME_OPEN_ID, message);
    expect(answer).toMatchObject({ status: 200, body: { outcome: 'delivered' } });
    // The default account has no order of that number: its route does not reach acme's.
    const other = orderMessage(messageId('dflt-order'), {
      orderNumber: submitted.orderNumber,
      orderStatus: 'SHIPPED',
    });
    expect((await signed('/webhooks/supplier', h.account.openId, other)).body.outcome).toBe('held');
    expect(orderWorkflowId(submitted.orderNumber, 'acme')).toBe(submitted.workflowId);
  });

  it('a bad signature or an unknown account changes nothing', async () => {
    const before = await inboxOf('acme');
    const id = messageId('forged');
    const message = orderMessage(id, {
      orderNumber: orderNumber('forged'),
      orderStatus: 'SHIPPED',
    });
    // Signed with the default account's key: not acme's.
    expect((await signed('/webhooks/acme', h.account.openId, message)).status).toBe(401);
    expect((await signed('/webhooks/nobody', ACME_OPEN_ID, message)).status).toBe(404);
    expect((await signed('/webhooks/Not-An-Id', ACME_OPEN_ID, message)).status).toBe(404);
    await expect(
      h.client.workflow.getHandle(webhookInboxId(scope('nobody'))).describe(),
    ).rejects.toThrow(WorkflowNotFoundError);
    const after = await inboxOf('acme');
    expect(after?.received).toBe(before?.received);
    expect(after?.held.map((e) => e.event.messageId)).not.toContain(id);
  });
});
