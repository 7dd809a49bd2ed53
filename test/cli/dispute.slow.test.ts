/**
 * `dropflow dispute reasons|open|cancel|status` against the real dev server and the sandbox: the
 * operator reads what can be disputed, opens a dispute with a reason it offers, follows it to its
 * outcome and cancels one; refusals say why.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import type { DisputeTermsView } from '../../src/client/disputeClient.js';
import { Stage, type ActionResult } from '../../src/order/contract.js';
import { disputeStatusQuery, type DisputeStatus } from '../../src/dispute/contract.js';
import { queuePrefix } from '../../src/temporal/taskQueues.js';
import { eventually } from '../support/eventually.js';
import { reachStage, startOrder, validOrder, useOrderHarness } from '../support/orders.js';
import { sandboxUrl } from '../support/sandbox.js';
import { usOrder } from '../supplier/orderHelpers.js';
import { runDropflow } from '../support/cli.js';

const h = useOrderHarness('dispute-cli');
let dataDir: string;
beforeAll(async () => {
  // No dev key of a checkout's .dropflow: the harness's payloads are in clear.
  dataDir = await mkdtemp(join(tmpdir(), 'dropflow-dispute-cli-'));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

function dropflow(...args: string[]) {
  return runDropflow(['dispute', ...args], {
    env: {
      DROPFLOW_DATA_DIR: dataDir,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: inject('temporalNamespace'),
      TEMPORAL_TASK_QUEUE_PREFIX: queuePrefix(h.queues),
      SUPPLIER_BASE_URL: sandboxUrl(),
      SUPPLIER_API_KEY: h.account.apiKey,
    },
  });
}

async function json<T>(...args: string[]): Promise<T> {
  const { code, stdout, stderr } = await dropflow(...args, '--json');
  expect(stderr).toBe('');
  expect(code, stdout).toBe(0);
  return JSON.parse(stdout) as T;
}

/** A paid order of the harness's account (it may be disputed). */
async function paidOrder(): Promise<string> {
  const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B' } });
  await reachStage(await startOrder(h, input), Stage.AWAITING_SHIPMENT);
  return input.order.orderNumber;
}

function disputeReaches(workflowId: string, stage: DisputeStatus['stage']) {
  const handle = h.client.workflow.getHandle(workflowId);
  return eventually(
    `${workflowId} at ${stage}`,
    () => handle.query(disputeStatusQuery),
    (s) => s.stage === stage,
    60_000,
  );
}

interface Opened {
  outcome: 'started' | 'existing';
  workflowId: string;
  businessDisputeId: string;
}
interface Listed {
  orderNumber: string;
  disputes: {
    workflowId: string;
    running: boolean;
    finallyDeal?: number;
    status?: DisputeStatus;
  }[];
}

describe('dropflow dispute', () => {
  it('lists reasons, opens with one, shows the outcome, and no longer offers the order meanwhile', async () => {
    const orderNumber = await paidOrder();
    const terms = await json<DisputeTermsView>('reasons', orderNumber);
    expect(terms.lines.length).toBeGreaterThan(0);
    expect(terms.lines.every((l) => l.canChoose)).toBe(true);
    expect(terms.reasons).toContainEqual({ disputeReasonId: 2, reasonName: 'Damaged' });
    expect(terms.maxAmount).toBeGreaterThan(0);
    expect(terms.expect).toEqual(['refund', 'reissue']);

    // A reason the supplier does not offer is refused before anything starts.
    const wrong = await dropflow('open', orderNumber, '--reason', '99', '--expect', 'refund');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/reason 99 is not offered for order .*; offered: 1 Item/);

    const opened = await json<Opened>(
      'open',
      orderNumber,
      '--reason',
      '2',
      '--expect',
      'refund',
      '--message',
      'arrived broken',
      '--check-every',
      '3',
    );
    expect(opened.outcome).toBe('started');
    const open = await disputeReaches(opened.workflowId, 'OPEN');
    expect(open.reason).toBe('Damaged');

    // While it is open the supplier offers nothing more on the order.
    const during = await json<DisputeTermsView>('reasons', orderNumber);
    expect(during.lines.every((l) => !l.canChoose)).toBe(true);
    expect(during.reasons).toEqual([]);

    const res = await fetch(`${sandboxUrl()}/__sandbox/disputes/${open.disputeId!}/resolve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ finallyDeal: 1 }),
    });
    expect(res.status).toBe(200);
    await disputeReaches(opened.workflowId, 'RESOLVED');

    const listed = await json<Listed>('status', orderNumber);
    expect(listed.disputes).toHaveLength(1);
    expect(listed.disputes[0]).toMatchObject({
      workflowId: opened.workflowId,
      finallyDeal: 1,
      status: { stage: 'RESOLVED', disputeId: open.disputeId, outcome: { result: 'refund' } },
    });
    expect(listed.disputes[0]!.status!.outcome!.money).toBeCloseTo(open.amount!, 2);

    const text = await dropflow('status', orderNumber);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`dispute ${opened.businessDisputeId}  RESOLVED`);
    expect(text.stdout).toMatch(/outcome +refund \(finallyDeal 1\), \d+\.\d\d USD refunded/);
  });

  it('cancels the open dispute, and says when there is none', async () => {
    const orderNumber = await paidOrder();
    const opened = await json<Opened>(
      'open',
      orderNumber,
      '--reason',
      '1',
      '--expect',
      'reissue',
      '--line',
      `${(await json<DisputeTermsView>('reasons', orderNumber)).lines[0]!.lineItemId}:1`,
    );
    await disputeReaches(opened.workflowId, 'OPEN');

    const cancelled = await json<ActionResult>(
      'cancel',
      orderNumber,
      '--reason',
      'the parcel turned up',
    );
    expect(cancelled).toMatchObject({ accepted: true, stage: 'CANCELLED' });
    const status = await json<Listed>('status', orderNumber);
    expect(status.disputes[0]?.status?.stage).toBe('CANCELLED');

    await eventually(
      'the dispute workflow closed in visibility',
      () => json<Listed>('status', orderNumber),
      (l) => l.disputes.every((d) => !d.running),
    );
    const again = await dropflow('cancel', orderNumber, '--json');
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toEqual({
      error: { message: `order ${orderNumber} has no open dispute`, code: 'NO_OPEN_DISPUTE' },
    });
  });
});
