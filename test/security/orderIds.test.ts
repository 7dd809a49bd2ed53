/**
 * Door: order ids across tenants. The default account's orders are `order:<n>` and another
 * account's `order:<account>:<n>`, so an orderNumber with a `:` (the default account's
 * `shop-a:88`) would take another tenant's order id: its submit would then meet a 409 and its own
 * order a 403. Every intake refuses an orderNumber outside its alphabet, and an account id that a
 * route takes for itself (`supplier`), with the field and the rule; nothing starts. Orders already
 * in flight keep their numbers. The `dropflow` command's refusals are orderIds.slow.test.ts.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { newAccountIdIssue } from '../../src/accounts/contract.js';
import { addAccount } from '../../src/accounts/registryEdits.js';
import { intakeTokenHash, parseRegistry } from '../../src/accounts/registryFile.js';
import { staticAccountDirectory } from '../../src/accounts/staticDirectory.js';
import { OrderClient, OrderInvalidError } from '../../src/client/orderClient.js';
import { loadConfig } from '../../src/config/environment.js';
import { orderWorkflowId } from '../../src/order/contract.js';
import { amendOrder, ORDER_NUMBER_RULE, parseOrder } from '../../src/order/orderInput.js';
import { orderNumber } from '../supplier/orderHelpers.js';
import { OPERATOR_TOKEN, useIntakeGateway } from './intakeGateway.js';

const SHOP = 'sec-ids-a';
const SHOP_TOKEN = 'sec-ids-store-token-0123456789';
const RESERVED =
  '"supplier" is reserved: /webhooks/supplier is the default account\'s webhook route';

const g = useIntakeGateway('sec-ids', {
  accounts: staticAccountDirectory([
    { id: SHOP, tier: 1, apiKey: 'k', intakeTokenSha256: [intakeTokenHash(SHOP_TOKEN)] },
  ]),
});

async function example(number: string, extra: Record<string, unknown> = {}) {
  const order = JSON.parse(await readFile('examples/order-flow-b.json', 'utf8')) as object;
  return { ...order, orderNumber: number, ...extra };
}

async function post(body: unknown, token = OPERATOR_TOKEN) {
  const res = await fetch(`${g.gateway.url}/v1/orders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("an orderNumber cannot take another tenant's order id", () => {
  it("POST /v1/orders refuses the default account's `<account>:<n>`, and shop's order id stays free", async () => {
    const theirs = orderNumber('n');
    const answer = await post(await example(`${SHOP}:${theirs}`));
    expect(answer).toEqual({
      status: 400,
      body: { errors: [{ field: 'orderNumber', rule: ORDER_NUMBER_RULE }] },
    });
    expect(await g.exists(orderWorkflowId(theirs, SHOP))).toBe(false);
  });

  it('the client (OrderClient.submit) refuses it, and nothing starts', async () => {
    const theirs = orderNumber('c');
    const orders = new OrderClient(g.client, g.queues);
    const refused = orders.submit(await example(`${SHOP}:${theirs}`));
    await expect(refused).rejects.toBeInstanceOf(OrderInvalidError);
    await expect(refused).rejects.toMatchObject({
      issues: [{ field: 'orderNumber', rule: ORDER_NUMBER_RULE }],
    });
    expect(await g.exists(orderWorkflowId(theirs, SHOP))).toBe(false);
  });

  it.each([
    ['a colon', 'shop-a:88'],
    ['a URL fragment', '#1001'],
    ['a path', 'a/../b'],
    ['a quote (visibility queries)', "x' OR OrderNumber != '"],
    ['a space', 'ORDER 1'],
    ['a non-ASCII letter', 'ÖRDER-1'],
    ['a leading dot', '.hidden'],
    ['51 characters', 'N'.repeat(51)],
    ['nothing', ''],
  ])('%s in an orderNumber is refused with the field and the rule', (_what, number) => {
    const parsed = parseOrder({ orderNumber: number });
    expect(parsed.ok).toBe(false);
    const issues = parsed.ok ? [] : parsed.issues.filter((i) => i.field === 'orderNumber');
    expect(issues).toEqual([{ field: 'orderNumber', rule: ORDER_NUMBER_RULE }]);
  });

  it('an order already in flight keeps its number: its amendment is checked as before', async () => {
    const legacy = parseOrder(await example('LEGACY-1'));
    if (!legacy.ok) throw new Error('the example order is valid');
    const inFlight = {
      ...legacy.input,
      order: { ...legacy.input.order, orderNumber: 'shop-a:77' },
    };
    const amended = amendOrder(inFlight, { remark: 'leave at the door' });
    expect(amended).toMatchObject({ ok: true, fields: ['remark'] });
  });

  it('an order already in flight keeps its number: GET looks it up rather than refusing it', async () => {
    const res = await fetch(`${g.gateway.url}/v1/orders/${SHOP}:${orderNumber('old')}`, {
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    expect(res.status).toBe(404);
  });
});

describe("an account id cannot take a route's name", () => {
  it('`supplier` is refused by registry edits and in the registry file', async () => {
    const config = loadConfig({ DROPFLOW_DATA_DIR: await mkdtemp(join(tmpdir(), 'ids-')) });
    await expect(addAccount(config, 'supplier', { tier: 1, apiKey: 'k' })).rejects.toMatchObject({
      issues: [{ field: 'id', rule: RESERVED }],
    });
    const file = { version: 1, revision: 1, accounts: [{ id: 'supplier', tier: 1, apiKey: 'k' }] };
    expect(() => parseRegistry('accounts.json', JSON.stringify(file))).toThrow(
      `accounts[0].id: ${RESERVED}`,
    );
  });

  it('an order naming account `supplier` is refused by field and rule', async () => {
    const answer = await post(await example(orderNumber('r'), { account: 'supplier' }));
    expect(answer).toEqual({
      status: 400,
      body: { errors: [{ field: 'account', rule: RESERVED }] },
    });
  });

  it('ids outside the alphabet (a colon among them) are refused with the rule', () => {
    for (const id of ['shop:a', 'Shop-A', '-shop', 'a'.repeat(33), '']) {
      expect(newAccountIdIssue(id), id).toMatch(/^must be 1 to 32 lower-case letters/);
    }
    expect(newAccountIdIssue('shop-a')).toBeUndefined();
  });
});
