/**
 * `--account <id>` of the commands that name an order by its number: an order of another account
 * than `default` is `order:<account>:<orderNumber>`, and `status`, `cancel`, … reach it only when
 * told its account. An account the registry does not have, or a malformed id, is refused before
 * connecting (exit 2). `list` shows each order's account and filters by it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { DEFAULT_ACCOUNT, type Account } from '../../src/accounts/contract.js';
import { staticAccountDirectory } from '../../src/accounts/staticDirectory.js';
import { OrderClient, type OrderSummary } from '../../src/client/orderClient.js';
import { orderWorkflowId, Stage, statusQuery } from '../../src/order/contract.js';
import { runDropflow } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { nameScenario } from '../support/histories.js';
import { useOrderHarness } from '../support/orders.js';
import { newSandboxAccount } from '../support/sandbox.js';
import { orderNumber, usOrder } from '../supplier/orderHelpers.js';

const SHOP = 'shop-cli';
const SHOP_KEY = `key-of-${SHOP}-${process.pid}`;

let dataDir: string;
beforeAll(async () => {
  // No dev key from a `dropflow dev` of this checkout: the test's workers read payloads in clear.
  dataDir = await mkdtemp(join(tmpdir(), 'dropflow-order-account-'));
  const added = await runDropflow(
    ['account', 'add', SHOP, '--tier', '1', '--api-key-env', 'SHOP_KEY'],
    { env: { DROPFLOW_DATA_DIR: dataDir, SHOP_KEY } },
  );
  expect(added.code).toBe(0);
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

function dropflow(args: string[], temporalAddress = '127.0.0.1:1', stdin?: string) {
  return runDropflow(
    [...args, '--temporal-address', temporalAddress, '--namespace', inject('temporalNamespace')],
    { env: { DROPFLOW_DATA_DIR: dataDir }, ...(stdin !== undefined && { stdin }) },
  );
}

/** Every command that names an order by its number, with what else it needs. */
const BY_NUMBER: { args: string[]; stdin?: string }[] = [
  { args: ['status', 'ANY-1'] },
  { args: ['cancel', 'ANY-1', '--reason', 'test'] },
  { args: ['resume', 'ANY-1'] },
  { args: ['approve-payment', 'ANY-1'] },
  { args: ['change-logistics', 'ANY-1', '--logistic-name', 'SvcPacket Express'] },
  { args: ['amend', 'ANY-1', '-'], stdin: JSON.stringify({ shippingZip: '10001' }) },
  { args: ['dispute', 'status', 'ANY-1'] },
  { args: ['dispute', 'cancel', 'ANY-1'] },
  { args: ['dispute', 'reasons', 'ANY-1'] },
  { args: ['events', 'replay', 'ANY-1'] },
  { args: ['list'] },
];

describe('before connecting', () => {
  it('every by-number command (and list) refuses an account the registry does not have (exit 2)', async () => {
    const runs = await Promise.all(
      BY_NUMBER.map(({ args, stdin }) =>
        dropflow([...args, '--account', 'shop-z', '--json'], undefined, stdin),
      ),
    );
    for (const [i, run] of runs.entries()) {
      expect({ args: BY_NUMBER[i]!.args, code: run.code }).toEqual({
        args: BY_NUMBER[i]!.args,
        code: 2,
      });
      expect(JSON.parse(run.stdout)).toEqual({
        error: {
          message: 'no supplier account "shop-z" (add it with `dropflow account add shop-z`)',
          code: 'UNKNOWN_ACCOUNT',
        },
      });
    }
  }, 300_000);

  it('and a malformed account id', async () => {
    const malformed = await dropflow(['status', 'ANY-1', '--account', 'Shop Z']);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toMatch(/^dropflow: --account: must be 1 to 32 lower-case letters/);
  });
});

describe('against an order of another account than the default', () => {
  const shop: Account = { id: SHOP, tier: 1, apiKey: SHOP_KEY, intakeTokenSha256: [] };
  const directory = staticAccountDirectory([
    { id: DEFAULT_ACCOUNT, tier: 1, apiKey: 'unused', intakeTokenSha256: [] },
    shop,
  ]);
  const h = useOrderHarness('cli-account', undefined, { accounts: directory });
  beforeAll(async () => {
    // The shop's calls go with its own key: the sandbox has that account too.
    await newSandboxAccount(10_000, 1, SHOP_KEY);
  });

  it('status, list and cancel reach it with --account, and only with it', async () => {
    const orders = new OrderClient(h.client, h.queues, { accounts: directory });
    const number = orderNumber('acct');
    nameScenario(`order:${SHOP}:${number}`);
    // A product the supplier does not have: the order stops before the supplier has it.
    const submitted = await orders.submit({
      ...usOrder({ orderNumber: number, products: [{ vid: 'P9999-V9', quantity: 1 }] }),
      fulfillment: { flow: 'B' },
      account: SHOP,
    });
    const workflowId = orderWorkflowId(number, SHOP);
    expect(submitted.workflowId).toBe(workflowId);
    const handle = h.client.workflow.getHandle(workflowId);
    await eventually(
      `${workflowId} at NEEDS_ATTENTION`,
      () => handle.query(statusQuery),
      (s) => s.stage === Stage.NEEDS_ATTENTION,
      120_000,
    );
    const address = inject('temporalAddress');

    const without = await dropflow(['status', number, '--json'], address);
    expect(without.code).toBe(1);
    expect(JSON.parse(without.stdout)).toMatchObject({
      error: {
        code: 'ORDER_NOT_FOUND',
        message: `no order ${number} (workflow order:${number} not found)`,
      },
    });

    const status = await dropflow(['status', number, '--account', SHOP], address);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(
      new RegExp(`^order +${number} \\(workflow ${workflowId}\\)$`, 'm'),
    );
    expect(status.stdout).toMatch(/^stage +NEEDS_ATTENTION$/m);

    const listed = async (account: string) => {
      const run = await dropflow(
        ['list', '--account', account, '--limit', '1000', '--json'],
        address,
      );
      expect(run.code).toBe(0);
      return (JSON.parse(run.stdout) as OrderSummary[]).filter((o) => o.orderNumber === number);
    };
    const inShop = await eventually(
      `${number} listed in ${SHOP}`,
      () => listed(SHOP),
      (found) => found.length === 1,
    );
    expect(inShop[0]).toMatchObject({ workflowId, account: SHOP, stage: Stage.NEEDS_ATTENTION });
    expect(await listed(DEFAULT_ACCOUNT)).toEqual([]);
    const table = await dropflow(['list', '--account', SHOP, '--limit', '1000'], address);
    expect(table.stdout).toMatch(new RegExp(`^${number} +${SHOP} +NEEDS_ATTENTION`, 'm'));

    const refused = await dropflow(['cancel', number, '--reason', 'wrong account'], address);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/no order .* not found/);
    const cancelled = await dropflow(
      ['cancel', number, '--account', SHOP, '--reason', 'test: --account', '--json'],
      address,
    );
    expect(cancelled.code).toBe(0);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ accepted: true });
    const ended = await eventually(
      `${workflowId} cancelled`,
      () => handle.query(statusQuery),
      (s) => s.stage === Stage.CANCELLED,
    );
    expect(ended.stage).toBe(Stage.CANCELLED);
  }, 300_000);
});
