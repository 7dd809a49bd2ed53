/**
 * Each message names its step or action once: a supplier failure's message already starts with
 * its endpoint (often the step's name), and a workflow's refusal already says `<action> refused:`
 * and names the order. Reproduced on a real order waiting for funds, then each formatter alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

import { Stage, type OrderStatus } from '../../src/order/contract.js';
import { failureText, withoutActionPrefix } from '../../src/supplier/failureDetails.js';
import { OrderActionRejectedError } from '../../src/client/orderClient.js';
import { orderGlance } from '../../src/order/orderGlance.js';
import { formatStatus } from '../../src/cli/commands/status.js';
import { reportAction } from '../../src/cli/output.js';
import { queuePrefix } from '../../src/temporal/taskQueues.js';
import { reachStage, startOrder, validOrder, useOrderHarness } from '../support/orders.js';
import { usOrder } from '../supplier/orderHelpers.js';
import { runDropflow } from '../support/cli.js';

describe('on an order waiting for funds', () => {
  // No money: the payment meets 1604000 and the order waits in AWAITING_FUNDS.
  const h = useOrderHarness('prefixes', 0);
  let dataDir: string;
  let orderNumber: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'dropflow-prefixes-'));
    const input = validOrder({ ...usOrder(), fulfillment: { flow: 'B' } });
    orderNumber = input.order.orderNumber;
    await reachStage(await startOrder(h, input), Stage.AWAITING_FUNDS);
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  function dropflow(...args: string[]) {
    return runDropflow(args, {
      env: {
        DROPFLOW_DATA_DIR: dataDir,
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        TEMPORAL_NAMESPACE: inject('temporalNamespace'),
        TEMPORAL_TASK_QUEUE_PREFIX: queuePrefix(h.queues),
      },
    });
  }

  it('`status` names the failed step once', async () => {
    const { code, stdout } = await dropflow('status', orderNumber);
    expect(code).toBe(0);
    const error = stdout.split('\n').find((l) => l.startsWith('error'));
    expect(error).toMatch(/^error +payBalanceV2: Balance insufficient/);
    expect(stdout).not.toContain('payBalanceV2: payBalanceV2');
  });

  it('a refused Update says `<action> refused:` once', async () => {
    const { code, stderr } = await dropflow('approve-payment', orderNumber);
    expect(code).toBe(1);
    expect(stderr).toBe(
      `dropflow: approvePayment refused: no payment waits for approval (order ${orderNumber} is AWAITING_FUNDS)\n`,
    );
  });
});

describe('one prefix per message', () => {
  const failed: OrderStatus = {
    orderNumber: 'P-1',
    flow: 'B',
    stage: 'AWAITING_FUNDS',
    timeline: [],
    error: {
      step: 'payBalanceV2',
      message: 'payBalanceV2: Balance insufficient: 36.10 USD needed',
      code: 1604000,
    },
  };

  it('says the step once where the message starts with it, both where they differ', () => {
    expect(failureText(failed.error!)).toBe('payBalanceV2: Balance insufficient: 36.10 USD needed');
    expect(failureText({ step: 'createDispute look-up', message: 'getDisputeList: busy' })).toBe(
      'createDispute look-up: getDisputeList: busy',
    );
    expect(formatStatus(failed).join('\n')).not.toContain('payBalanceV2: payBalanceV2');
    expect(orderGlance(failed)).toMatch(
      /^AWAITING_FUNDS — payBalanceV2: Balance insufficient: 36\.10 USD needed \(code 1604000\) — /,
    );
  });

  it("keeps the workflow's own `<action> refused:`, and adds one where there is none", () => {
    const own = new OrderActionRejectedError(
      'P-1',
      'resume',
      'resume refused: it is not waiting for a person (order P-1 is SHIPPED)',
    );
    expect(own.message).toBe(
      'resume refused: it is not waiting for a person (order P-1 is SHIPPED)',
    );
    const bare = new OrderActionRejectedError('P-1', 'cancel dispute', 'the dispute is RESOLVED');
    expect(bare.message).toBe('cancel dispute refused for order P-1: the dispute is RESOLVED');
    expect(withoutActionPrefix('approve-payment', 'approvePayment refused: none waits')).toBe(
      'none waits',
    );
    expect(withoutActionPrefix('resume', 'cancel refused: paid')).toBe('cancel refused: paid');
  });

  it("prints an answer that was not carried out without the action's prefix again", () => {
    const written: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = (chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    };
    try {
      reportAction(
        'cancel',
        'P-1',
        {
          accepted: false,
          stage: 'PAID',
          message: 'cancel refused: the order was paid with its batch',
        },
        false,
      );
    } finally {
      process.stdout.write = write;
      process.exitCode = 0;
    }
    expect(written.join('')).toBe(
      'cancel P-1: not carried out; stage PAID; the order was paid with its batch\n',
    );
  });
});
