/**
 * `dropflow amend <orderNumber> <file|->`: changes that cannot be an amendment are refused before
 * connecting (exit 2); against a real order, invalid changes name field and rule (exit 2), an
 * accepted amend prints the workflow's answer (exit 0), and a refused one its reason (exit 1).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { Stage } from '../../src/order/contract.js';
import { OrderClient } from '../../src/client/orderClient.js';
import { nameScenario } from '../support/histories.js';
import { reachStage, useOrderHarness } from '../support/orders.js';
import { usOrder } from '../supplier/orderHelpers.js';
import { runDropflow } from '../support/cli.js';

let dataDir: string;
beforeAll(async () => {
  // No dev key from a `dropflow dev` of this checkout: the test's workers read payloads in clear.
  dataDir = await mkdtemp(join(tmpdir(), 'dropflow-amend-'));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

function amend(stdin: string, args: string[], temporalAddress = '127.0.0.1:1') {
  return runDropflow(
    [
      'amend',
      ...args,
      '-',
      '--temporal-address',
      temporalAddress,
      '--namespace',
      inject('temporalNamespace'),
    ],
    { stdin, env: { DROPFLOW_DATA_DIR: dataDir } },
  );
}

describe('before connecting', () => {
  it('refuses changes that are not JSON, or name fields amend cannot change (exit 2)', async () => {
    const notJson = await amend('{"shippingZip": ', ['ANY-1']);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toMatch(/^\(body\): must be JSON/);

    const named = await amend('{"orderNumber": "B-2", "fromCountryCode": "US"}', ['ANY-1']);
    expect(named.code).toBe(2);
    expect(named.stdout).toBe('');
    const lines = named.stderr.split('\n');
    expect(lines).toContain('orderNumber: cannot be amended: it names the order');
    expect(lines.some((l) => l.startsWith('fromCountryCode: cannot be amended'))).toBe(true);
  });
});

describe('against an order', () => {
  const h = useOrderHarness('cli-amend');

  it('names field and rule of invalid changes, prints the answer of an accepted amend, and the reason of a refused one', async () => {
    const orders = new OrderClient(h.client, h.queues);
    const raw = {
      ...usOrder({ products: [{ vid: 'P9999-V9', quantity: 1 }] }),
      fulfillment: { flow: 'B' },
    };
    const number = raw.orderNumber;
    nameScenario(`order:${number}`);
    await orders.submit(raw);
    const handle = h.client.workflow.getHandle(`order:${number}`);
    await reachStage(handle, Stage.NEEDS_ATTENTION);
    const address = inject('temporalAddress');

    const invalid = await amend(
      JSON.stringify({ products: [{ vid: 'P0001-V1', quantity: 0 }] }),
      [number],
      address,
    );
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/^products\[0\]\.quantity: .*at least 1/m);

    const accepted = await amend(
      JSON.stringify({ products: [{ vid: 'P0001-V1', quantity: 1 }] }),
      [number, '--by', 'cli-test'],
      address,
    );
    expect(accepted.stderr).toBe('');
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toMatch(
      new RegExp(
        `^amend ${number}: accepted; stage \\w+; amended products; going on with createOrderV3\\n$`,
      ),
    );

    await reachStage(handle, Stage.AWAITING_SHIPMENT);
    const refused = await amend(JSON.stringify({ shippingZip: '90211' }), [number], address);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/amend refused: the supplier has created the order/);
  });
});
