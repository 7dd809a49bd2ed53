/**
 * `dropflow account add|list|set-tier|remove` as an operator runs them: secrets from a variable or
 * stdin, never printed; two commands at once keep each other's edits; a bad edit names the field
 * and the rule; remove refuses an account with open workflows unless --force.
 */
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';

import { addAccount } from '../../src/accounts/registryEdits.js';
import { loadConfig } from '../../src/config/environment.js';
import { SupplierAccount } from '../../src/temporal/searchAttributes.js';
import { eventually } from '../support/eventually.js';
import { runDropflow } from '../support/cli.js';

const API_KEY = 'cli-test-api-key-never-printed';
const STORE_TOKEN = 'cli-test-store-token-0123456789';

let dataDir: string;
const env = () => ({ DROPFLOW_DATA_DIR: dataDir, SHOP_KEY: API_KEY, SHOP_TOKEN: STORE_TOKEN });

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'dropflow-account-cli-'));
});

describe('dropflow account', () => {
  it('adds accounts, from two commands at once, and lists them without their secrets', async () => {
    const [a, b] = await Promise.all([
      runDropflow(
        [
          'account',
          'add',
          'shop-a',
          '--tier',
          '2',
          '--api-key-env',
          'SHOP_KEY',
          '--intake-token-env',
          'SHOP_TOKEN',
        ],
        { env: env() },
      ),
      runDropflow(['account', 'add', 'shop-b', '--tier', '6', '--api-key-stdin'], {
        env: env(),
        stdin: `${API_KEY}\n`,
      }),
    ]);
    expect(a).toMatchObject({ code: 0, stderr: '' });
    expect(b).toMatchObject({ code: 0, stderr: '' });
    expect(a.stdout).toMatch(/account shop-a added \(tier 2\/s\).*secrets stored IN CLEAR/);
    for (const run of [a, b]) expect(run.stdout + run.stderr).not.toContain(API_KEY);

    const list = await runDropflow(['account', 'list', '--json'], { env: env() });
    expect(list.code).toBe(0);
    expect(list.stdout).not.toContain(API_KEY);
    expect(list.stdout).not.toContain(STORE_TOKEN);
    const listing = JSON.parse(list.stdout) as {
      encryptedAtRest: boolean;
      accounts: { id: string; tier: number; hasApiKey: boolean; intakeTokens: number }[];
    };
    expect(listing.encryptedAtRest).toBe(false);
    expect(listing.accounts.map((x) => [x.id, x.tier, x.hasApiKey, x.intakeTokens])).toEqual([
      ['default', 1, true, 0],
      ['shop-a', 2, true, 1],
      ['shop-b', 6, true, 0],
    ]);
    const text = await runDropflow(['account', 'list'], { env: env() });
    expect(text.stdout).toMatch(/^shop-b\s+6\/s\s+file\s+yes/m);
    expect(text.stdout).toMatch(/IN CLEAR/);
  });

  it('changes a tier, and refuses bad edits by field and rule', async () => {
    const set = await runDropflow(['account', 'set-tier', 'shop-a', '4'], { env: env() });
    expect(set).toMatchObject({ code: 0 });
    const file = JSON.parse(await readFile(join(dataDir, 'accounts.json'), 'utf8')) as {
      accounts: { id: string; tier: number }[];
    };
    expect(file.accounts.find((x) => x.id === 'shop-a')?.tier).toBe(4);

    const badTier = await runDropflow(['account', 'set-tier', 'shop-a', '3'], { env: env() });
    expect(badTier.code).toBe(2);
    expect(badTier.stderr).toContain('tier: must be one of the rate tiers 1, 2, 4, 6');
    const noKey = await runDropflow(
      ['account', 'add', 'shop-c', '--tier', '1', '--api-key-env', 'UNSET_VAR'],
      {
        env: env(),
      },
    );
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('--api-key-env: the variable UNSET_VAR is not set');
    const missing = await runDropflow(['account', 'add', 'shop-c', '--tier', '1', '--json'], {
      env: env(),
    });
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stdout)).toMatchObject({
      issues: [{ field: 'apiKey', rule: 'is required' }],
    });
  });
});

describe('dropflow account remove', () => {
  let connection: Connection;
  let client: Client;
  const workflowId = `account-remove-${process.pid}-${Date.now().toString(36)}`;

  beforeAll(async () => {
    // This block's own registry, made in-process: rm-busy with an open run, rm-idle without. Their
    // ids are this file's own: other files share the namespace, and visibility counts by account.
    dataDir = await mkdtemp(join(tmpdir(), 'dropflow-account-remove-'));
    const config = loadConfig({ DROPFLOW_DATA_DIR: dataDir });
    await addAccount(config, 'rm-busy', { tier: 1, apiKey: API_KEY });
    await addAccount(config, 'rm-idle', { tier: 1, apiKey: API_KEY });
    connection = await Connection.connect({ address: inject('temporalAddress') });
    client = new Client({ connection, namespace: inject('temporalNamespace') });
  });
  afterAll(async () => {
    await client.workflow
      .getHandle(workflowId)
      .terminate('test over')
      .catch(() => undefined);
    await connection.close();
  });

  const temporalFlags = () => [
    '--temporal-address',
    inject('temporalAddress'),
    '--namespace',
    inject('temporalNamespace'),
  ];

  it('refuses while the account has open workflows; --force removes it and says what is left', async () => {
    // An open run of rm-busy: no worker polls its queue, so it stays open.
    await client.workflow.start('fulfillOrder', {
      workflowId,
      taskQueue: `${workflowId}/orders`,
      args: [],
      typedSearchAttributes: [{ key: SupplierAccount, value: 'rm-busy' }],
    });
    await eventually(
      'the open run of rm-busy in visibility',
      async () =>
        (await client.workflow.count(`SupplierAccount = 'rm-busy' AND ExecutionStatus = 'Running'`))
          .count,
      (count) => count === 1,
    );

    const refused = await runDropflow(['account', 'remove', 'rm-busy', ...temporalFlags()], {
      env: env(),
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('account rm-busy has 1 open workflow');
    const still = await runDropflow(['account', 'list', '--json'], { env: env() });
    expect(still.stdout).toContain('"rm-busy"');

    const forced = await runDropflow(
      ['account', 'remove', 'rm-busy', '--force', ...temporalFlags()],
      { env: env() },
    );
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(
      /account rm-busy removed.*1 open workflow left: they stop at NEEDS_ATTENTION/,
    );

    const idle = await runDropflow(['account', 'remove', 'rm-idle', ...temporalFlags()], {
      env: env(),
    });
    expect(idle).toMatchObject({ code: 0 });
    expect(idle.stdout).toMatch(/account rm-idle removed.*no open workflows/);
    const after = JSON.parse(
      (await runDropflow(['account', 'list', '--json'], { env: env() })).stdout,
    ) as { accounts: { id: string }[] };
    expect(after.accounts.map((x) => x.id)).toEqual(['default']);
  });
});
