/**
 * Door: order ids across tenants, at the `dropflow` command (orderIds.test.ts has the rest): an
 * orderNumber that would take another tenant's order id, and an account id that a route takes for
 * itself (`supplier`), are refused with the field and the rule before anything is written or
 * started. Each test starts the command, hence the slow suite.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { ORDER_NUMBER_RULE } from '../../src/order/orderInput.js';
import { runDropflow } from '../support/cli.js';

const SHOP = 'sec-ids-a';
const RESERVED =
  '"supplier" is reserved: /webhooks/supplier is the default account\'s webhook route';

async function example(number: string) {
  const order = JSON.parse(await readFile('examples/order-flow-b.json', 'utf8')) as object;
  return { ...order, orderNumber: number };
}

describe("an orderNumber cannot take another tenant's order id", () => {
  it('`dropflow submit` refuses it before connecting to Temporal', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dropflow-order-ids-'));
    const file = join(dir, 'order.json');
    await writeFile(file, JSON.stringify(await example(`${SHOP}:77`)));
    const run = await runDropflow(['submit', file, '--json', '--temporal-address', '127.0.0.1:1'], {
      env: { DROPFLOW_DATA_DIR: dir },
    });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({
      issues: [{ field: 'orderNumber', rule: ORDER_NUMBER_RULE }],
    });
  });
});

describe("an account id cannot take a route's name", () => {
  it("`supplier` (the default account's webhook route) is refused by `dropflow account add`", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dropflow-account-ids-'));
    const run = await runDropflow(
      ['account', 'add', 'supplier', '--tier', '1', '--api-key-env', 'KEY', '--json'],
      { env: { DROPFLOW_DATA_DIR: dir, KEY: 'key' } },
    );
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ issues: [{ field: 'id', rule: RESERVED }] });
    await expect(readFile(join(dir, 'accounts.json'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
