/**
 * Webhooks that repair themselves (docs/webhook-health.md), end to end: real order workflows, the
 * real gateway registered at the sandbox, and the account's tracking sweeper with short bounds.
 *
 * 1. The sandbox pauses the account's pushes, as the vendor does: a shipment reaches its order
 *    through the sweep alone (the measured lateness is printed), the sweeper sees the gap,
 *    registers the webhooks again (webhook/set) and the next change comes by push: healthy again.
 * 2. A supplier that pushes nothing at all: the repair registers no more often than its spacing,
 *    and orders still complete through the sweeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Stage, supplierStatusSignal } from '../../src/order/contract.js';
import { callbackUrlFor, enableWebhooks } from '../../src/gateway/registration.js';
import { ensureTrackingSweeper } from '../../src/tracking/sweeperStart.js';
import { sweeperStatusQuery, type SweeperStatus } from '../../src/tracking/contract.js';
import { eventually } from '../support/eventually.js';
import { accountStats } from '../support/sandbox.js';
import { reachStage, startOrder, useOrderHarness, validOrder } from '../support/orders.js';
import { advance, usOrder } from '../supplier/orderHelpers.js';
import { control } from '../sandbox/controls.js';
import { useTestGateway } from './support.js';

const SET = 'webhook/set';
const EVERY_SECONDS = 10;
const REPAIR = { gapSeconds: 6, registerEverySeconds: 20, repairEverySeconds: 2 };

const h = useOrderHarness('wh-repair', 10_000);
const gateway = useTestGateway(h, {
  openId: () => h.account.client.tokens.openId(),
  webhookPulseMs: 300,
});
let sweeperId = '';

beforeAll(async () => {
  const callback = callbackUrlFor(gateway.url, { allowLocal: true });
  await enableWebhooks(h.account.client, callback);
  ({ workflowId: sweeperId } = await ensureTrackingSweeper(h.client, {
    queues: h.queues,
    everySeconds: EVERY_SECONDS,
    account: { id: 'default' },
    webhooks: { ...REPAIR, callbackUrl: () => callback },
  }));
});

afterAll(async () => {
  await h.client.workflow
    .getHandle(sweeperId)
    .terminate('test over')
    .catch(() => undefined);
});

const sweeper = () => h.client.workflow.getHandle(sweeperId);
const health = (done: (s: SweeperStatus) => boolean, what: string) =>
  eventually(what, () => sweeper().query(sweeperStatusQuery), done, 120_000);
const registrations = async () => (await accountStats(h.account.openId)).calls[SET] ?? 0;

async function waitingOrders(count: number) {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const handle = await startOrder(h, validOrder({ ...usOrder(), fulfillment: { flow: 'B' } }));
      const status = await reachStage(handle, Stage.AWAITING_SHIPMENT);
      return { handle, svcOrderId: status.svcOrderId! };
    }),
  );
}

async function statusSignals(handle: {
  fetchHistory: () => Promise<{ events?: unknown[] | null }>;
}) {
  const events = (await handle.fetchHistory()).events ?? [];
  return events.filter(
    (e) =>
      (e as { workflowExecutionSignaledEventAttributes?: { signalName?: string } })
        .workflowExecutionSignaledEventAttributes?.signalName === supplierStatusSignal.name,
  ).length;
}

describe('webhooks that repair themselves', () => {
  it('pushes paused by the vendor: the sweep tells the order, the webhooks are registered again, pushes come back', async () => {
    const [first, second] = await waitingOrders(2);
    const before = await registrations();

    const paused = await control<{ topics: Record<string, { pausedReason?: string }> }>(
      'POST',
      'webhooks/pause',
      { openId: h.account.openId },
    );
    expect(paused.status).toBe(200);
    expect(paused.body.topics['order']?.pausedReason).toBeDefined();

    const shippedAt = Date.now();
    expect((await advance(first!.svcOrderId, 'SHIPPED')).status).toBe(200);
    await reachStage(first!.handle, Stage.SHIPPED);
    const lateMs = Date.now() - shippedAt;
    // No push: the sweeper told it.
    expect(await statusSignals(first!.handle)).toBe(1);

    const repaired = await health(
      (s) => (s.webhooks?.registrations ?? 0) >= 1,
      'the sweeper registering the webhooks again',
    );
    expect(repaired.webhooks?.lastRegistration?.ok).toBe(true);
    expect(repaired.webhooks?.polledChanges).toBeGreaterThanOrEqual(1);
    expect(await registrations()).toBe(before + 1);
    const view = await control<{ topics: Record<string, { pausedReason?: string }> }>(
      'GET',
      `webhooks?openId=${h.account.openId}`,
    );
    expect(view.body.topics['order']?.pausedReason).toBeUndefined();
    // The bound the sweeper states: the interval in force plus one sweep.
    const bound = repaired.webhooks!.worstCaseSeconds;
    console.log(
      `webhook gap: a shipment reached its order after ${(lateMs / 1000).toFixed(1)} s by the sweep alone ` +
        `(interval ${EVERY_SECONDS} s, gap bound ${REPAIR.gapSeconds} s; stated worst case now ${bound} s)`,
    );

    // The next change comes by push again: the gap ends, sweeps go back to their interval. A
    // sweep may see that change a moment before its push comes and open a gap, which the push
    // then closes: wait for the push itself, and for the gap to be 0.
    const pushesBefore =
      (await sweeper().query(sweeperStatusQuery)).webhooks?.topics['order']?.accepted ?? 0;
    expect((await advance(second!.svcOrderId, 'SHIPPED')).status).toBe(200);
    await reachStage(second!.handle, Stage.SHIPPED);
    const healthy = await health(
      (s) =>
        s.webhooks?.mode === 'healthy' &&
        s.webhooks.gapSeconds === 0 &&
        (s.webhooks.topics['order']?.accepted ?? 0) > pushesBefore,
      'pushes back, and no gap',
    );
    expect(healthy.webhooks?.worstCaseSeconds).toBeGreaterThanOrEqual(EVERY_SECONDS);
    expect(await registrations()).toBe(before + 1);
  }, 300_000);

  it('a supplier that pushes nothing: registrations stay paced, orders still complete through the sweeps', async () => {
    const [order] = await waitingOrders(1);
    expect(
      (await control('POST', 'webhooks/mute', { openId: h.account.openId, muted: true })).status,
    ).toBe(200);
    try {
      expect((await advance(order!.svcOrderId, 'SHIPPED')).status).toBe(200);
      await reachStage(order!.handle, Stage.SHIPPED);
      expect((await advance(order!.svcOrderId, 'DELIVERED')).status).toBe(200);
      await reachStage(order!.handle, Stage.COMPLETED);

      const start = await health((s) => s.webhooks?.mode !== 'healthy', 'the gap seen');
      const sweep = start.last?.sweep ?? 0;
      // Several sweeps later, each registration was at least its spacing after the one before.
      const later = await health(
        (s) => (s.last?.sweep ?? 0) >= sweep + 4 && s.webhooks?.lastRegistration !== undefined,
        'four more sweeps and a registration',
      );
      const w = later.webhooks!;
      const last = Date.parse(w.lastRegistration!.at);
      expect(Date.parse(w.nextRepairAt!) - last).toBeGreaterThanOrEqual(
        REPAIR.registerEverySeconds * 1_000,
      );
      // Every webhook/set the sandbox saw was one the sweeper counted (plus the first, by hand).
      expect(await registrations()).toBe(w.registrations + 1);
    } finally {
      await control('POST', 'webhooks/mute', { openId: h.account.openId, muted: false });
    }
  }, 300_000);
});
