/**
 * Every NEEDS_ATTENTION an order or a dispute can stop at is recovered by the action it names.
 * Each kind is provoked on the sandbox, its status read (the reason and what moves it on), that
 * action taken as an operator takes it (the client's resume, amend or cancel, as `dropflow` sends
 * them; or nothing but mending the cause, where the order says it goes on by itself), and the
 * order is followed to the stage it should reach, nothing sent twice.
 *
 * The kinds are enumerated from the code: `ATTENTION_SITES` names each file that stops a workflow
 * at NEEDS_ATTENTION, how many such places it has and the kinds they stop for; a check scans the
 * sources, so a new place (or a new kind) without a recovery case here fails this file.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { OrderClient } from '../../src/client/orderClient.js';
import { cancelDisputeWorkflow, openDispute } from '../../src/client/disputeClient.js';
import { disputeStatusQuery } from '../../src/dispute/contract.js';
import {
  cancelUpdate,
  orderWorkflowId,
  resumeUpdate,
  Stage,
  StaleReason,
  statusQuery,
  supplierEventSignal,
  supplierStatusSignal,
} from '../../src/order/contract.js';
import { SupplierClient } from '../../src/supplier/client.js';
import { SupplierCode } from '../../src/supplier/errors.js';
import { queuePrefix } from '../../src/temporal/taskQueues.js';
import { changeSettings, expireTokens } from '../sandbox/controls.js';
import { eventually } from '../support/eventually.js';
import { useOrderHarness, type OrderHarness } from '../support/orders.js';
import {
  after,
  expectOnceEach,
  reaches,
  stopAndRecover,
  stopped,
  submitOrder,
} from '../support/recovery.js';
import {
  accountStats,
  clearFaults,
  injectFault,
  newSandboxAccount,
  sandboxUrl,
  takenCalls,
} from '../support/sandbox.js';
import { advance, usOrder } from '../supplier/orderHelpers.js';
import { lookUpsKeepFailing, splitBeforeCreate } from './reconcile-support.js';

type AttentionKind =
  | 'supplierRefusal'
  | 'retriesExhausted'
  | 'doubtfulAnswer'
  | 'lookUpFailed'
  | 'dailyQuota'
  | 'keyRefused'
  | 'noTokenSince'
  | 'noLogisticsLine'
  | 'noStorageWithStock'
  | 'staleTracking'
  | 'disputeLinesRefused'
  | 'disputeNoReason'
  | 'disputeNotListed'
  | 'deliveryNotConfirmed'
  | 'storeCancelledAfterPayment'
  | 'splitNotSettled'
  | 'splitPaymentUnknown'
  | 'splitBeforeCreate';

/**
 * Every source file that stops a workflow at NEEDS_ATTENTION: its places (calls of
 * `needsAttention(`, entries of `Stage.NEEDS_ATTENTION`) and the kinds they stop for.
 */
const ATTENTION_SITES: Record<string, { places: number; kinds: AttentionKind[] }> = {
  // The stop itself (Waits.needsAttention, DisputeCase.needsAttention): its callers' kinds below.
  // A checkout batch stops no order itself: what it cannot settle it hands back (batchLookUp.ts), and
  // the order's own steps below stop for it; a batch look-up that kept failing, the order stops
  // for at once with the batch's failure (batchedCheckout.ts).
  'src/order/waits.ts': { places: 2, kinds: [] },
  'src/order/steps/batchedCheckout.ts': { places: 1, kinds: ['lookUpFailed'] },
  'src/dispute/disputeCase.ts': { places: 1, kinds: [] },
  // supplierStep: doubtful answers, any other failure (a refusal with its code, or transient
  // failures past their attempts), a look-up that keeps failing, a used-up daily quota (until it
  // resets); supplierCall: a refusal.
  'src/durable/supplierStep.ts': {
    places: 5,
    kinds: ['supplierRefusal', 'retriesExhausted', 'doubtfulAnswer', 'lookUpFailed', 'dailyQuota'],
  },
  'src/durable/tokenWait.ts': { places: 1, kinds: ['keyRefused', 'noTokenSince'] },
  'src/order/steps/plan.ts': { places: 2, kinds: ['noLogisticsLine', 'noStorageWithStock'] },
  'src/order/steps/stale.ts': { places: 1, kinds: ['staleTracking'] },
  'src/order/steps/shipment.ts': {
    places: 2,
    kinds: ['deliveryNotConfirmed', 'storeCancelledAfterPayment'],
  },
  'src/order/steps/parcels.ts': { places: 1, kinds: ['splitNotSettled'] },
  'src/order/steps/payment.ts': { places: 1, kinds: ['splitPaymentUnknown'] },
  'src/order/steps/checkout.ts': { places: 1, kinds: ['splitBeforeCreate'] },
  'src/dispute/disputeSteps.ts': {
    places: 3,
    kinds: ['disputeLinesRefused', 'disputeNoReason', 'disputeNotListed'],
  },
};

/**
 * Kinds the sandbox cannot provoke, and why; each still names its action (checked in the code).
 * The sandbox always offers its four dispute reasons.
 */
const NOT_PROVOKABLE: Partial<Record<AttentionKind, string>> = {
  disputeNoReason: 'the sandbox offers its four reasons to every dispute',
};

/**
 * Stops added in 2026-11 whose stop is provoked by another suite, and whose resume-and-recover
 * case is still owed here. This list may only shrink: the test below pins it.
 */
const RECOVERY_OWED: Record<OwedKind, string> = {
  deliveryNotConfirmed: 'a pushed DELIVERED the supplier does not show: no suite provokes it yet',
  storeCancelledAfterPayment: 'stop provoked by test/store/storeIntake.test.ts',
  splitNotSettled: 'children whose lines do not add up: judged in test/workflows/parcels.test.ts',
  splitPaymentUnknown: 'the children of a split shown unpaid: no suite provokes it yet',
};

/** Where the workflow code lives (frozen code is the old paths' own, kept as it was). */
function attentionPlaces(): Map<string, number> {
  const root = join(import.meta.dirname, '..', '..');
  const places = new Map<string, number>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'frozen') walk(path);
      } else if (entry.name.endsWith('.ts')) {
        const n = (
          readFileSync(path, 'utf8').match(
            /\bawait\s+[\w.]+\.needsAttention\(|\.enter\(\s*(?:Stage\.NEEDS_ATTENTION\b|'NEEDS_ATTENTION')/g,
          ) ?? []
        ).length;
        if (n > 0) places.set(relative(root, path), n);
      }
    }
  };
  walk(join(root, 'src'));
  return places;
}

describe('the kinds of NEEDS_ATTENTION', () => {
  it('are the kinds enumerated here: a new place that stops a workflow needs its recovery case', () => {
    expect(Object.fromEntries(attentionPlaces())).toEqual(
      Object.fromEntries(Object.entries(ATTENTION_SITES).map(([f, s]) => [f, s.places])),
    );
    const enumerated = Object.values(ATTENTION_SITES).flatMap((s) => s.kinds);
    const recovered = [
      ...Object.keys(RECOVERIES),
      ...Object.keys(NOT_PROVOKABLE),
      ...Object.keys(RECOVERY_OWED),
    ];
    expect([...recovered].sort()).toEqual([...new Set(enumerated)].sort());
    expect(Object.keys(RECOVERY_OWED).sort()).toEqual([
      'deliveryNotConfirmed',
      'splitNotSettled',
      'splitPaymentUnknown',
      'storeCancelledAfterPayment',
    ]);
  });

  it('the dispute reasons the sandbox cannot provoke still name their action', () => {
    const source = readFileSync(
      join(import.meta.dirname, '..', '..', 'src/dispute/disputeSteps.ts'),
      'utf8',
    );
    expect(source).toMatch(
      /'the supplier offers no dispute reason' },\s*'resume to ask for the reasons again, or cancel'/,
    );
  });
});

// ---- the recoveries --------------------------------------------------------------------------

const CREATE = 'shopping/order/createOrderV3';
const PAY = 'shopping/pay/payBalanceV2';
const FREIGHT = 'logistic/freightCalculate';

/** Short, so that an account without a token stops for a person within seconds. */
const NO_TOKEN_ATTENTION_MS = 3_000;

const h = useOrderHarness('attention', 10_000, { noTokenAttentionMs: NO_TOKEN_ATTENTION_MS });
let orders: OrderClient;
beforeAll(() => {
  orders = new OrderClient(h.client, h.queues);
});

const calls = takenCalls;

function flowB(overrides: Record<string, unknown> = {}, fulfillment: Record<string, unknown> = {}) {
  return { ...usOrder(), ...overrides, fulfillment: { flow: 'B', ...fulfillment } };
}

const waybill = () => ({
  carrier: 'SF Express',
  trackNumber: `SF${Date.now()}`,
  filename: 'label.pdf',
  contentBase64: Buffer.from('%PDF-1.4 label').toString('base64'),
});

/** `resume`, as `dropflow resume` sends it: accepted. */
const resumeIt = async (number: string) => {
  expect((await orders.resume(number, { by: 'test' })).accepted).toBe(true);
};

/** `amend` with these changes, as `dropflow amend` sends it: accepted. */
const amendWith = (order: Record<string, unknown>) => async (number: string) => {
  expect((await orders.amend(number, { order, by: 'test' })).accepted).toBe(true);
};

type OwedKind =
  'deliveryNotConfirmed' | 'storeCancelledAfterPayment' | 'splitNotSettled' | 'splitPaymentUnknown';

const RECOVERIES: Record<
  Exclude<AttentionKind, 'disputeNoReason' | OwedKind>,
  () => Promise<void>
> = {
  /** A create's answer lost while the supplier split the order: cancel removes every part. */
  async splitBeforeCreate() {
    const lines = [
      { vid: 'P0001-V1', quantity: 1 },
      { vid: 'P0002-V1', quantity: 1 },
    ];
    const { handle, codes, stopped, before } = await splitBeforeCreate(h, lines);
    expect(stopped.waitingFor).toMatch(/cancel/);
    await handle.executeUpdate(cancelUpdate, { args: [{ reason: 'parts bought by hand' }] });
    const done = await reaches(handle, Stage.CANCELLED);
    for (const code of codes) {
      expect(done.timeline.some((t) => t.note === `deleted ${code} at the supplier`)).toBe(true);
    }
    const now = await accountStats(h.account.openId);
    expect(calls(now, CREATE) - calls(before, CREATE)).toBe(1);
    expect(now.payments - before.payments).toBe(0);
  },

  /** A refusal with its code before the supplier has the order: amend. */
  async supplierRefusal() {
    const r = await stopAndRecover({
      harness: h,
      raw: flowB({ products: [{ vid: 'P9999-V9', quantity: 2 }] }),
      stop: (s) => {
        expect(s.error).toMatchObject({ step: 'createOrderV3', code: SupplierCode.ParamError });
        expect(s.error?.requestId).toMatch(/\w+/);
        expect(s.waitingFor).toMatch(/^amend the order \(field products\[0\]\.vid\) or cancel/);
      },
      recover: amendWith({ products: [{ vid: 'P0001-V1', quantity: 2 }] }),
    });
    expect(after(r.done)).toContain(Stage.PAID);
    expect(r.now.ordersCreated - r.before.ordersCreated).toBe(1);
    expect(calls(r.now, PAY) - calls(r.before, PAY)).toBe(1);
  },

  /** A read that keeps failing past its attempts: resume once the supplier answers. */
  async retriesExhausted() {
    const { openId } = h.account;
    await injectFault({ path: FREIGHT, kind: 'http5xx', times: 100, openId });
    try {
      const raw = flowB({}, { logistics: { policy: 'cheapest' } });
      delete (raw as { logisticName?: string }).logisticName;
      const r = await stopAndRecover({
        harness: h,
        raw,
        stop: (s) => {
          expect(s.error?.step).toBe('freightCalculate');
          expect(s.waitingFor).toMatch(/^resume after the cause of freightCalculate is fixed/);
        },
        recover: async (number) => {
          await clearFaults(openId);
          await resumeIt(number);
        },
      });
      expect(after(r.done)).toContain(Stage.PAID);
      // Created once (the sandbox counts a rate-limited call too, which never acts).
      expectOnceEach(r);
    } finally {
      await clearFaults(openId);
    }
  },

  /**
   * "Order exist" while the supplier's view (lagging) does not show it, more often than the step
   * believes: resume looks again once the view shows it, and adopts it; nothing created twice.
   */
  async doubtfulAnswer() {
    const { openId } = h.account;
    const raw = flowB({}, { supplierLagSeconds: 1 });
    // An earlier create of this order landed; the supplier's queries trail by 10 minutes.
    const { fulfillment: _f, ...body } = raw;
    expect((await changeSettings({ openId, batchLagMs: 600_000 })).status).toBe(200);
    try {
      await h.account.client.api.createOrderV3(body);
      const r = await stopAndRecover({
        harness: h,
        raw,
        stop: (s) => {
          expect(s.error).toMatchObject({
            step: 'createOrderV3',
            code: SupplierCode.DuplicateOrder,
          });
          expect(s.waitingFor).toMatch(
            /^check createOrderV3 at the supplier: .*resume to look again/,
          );
        },
        recover: async (number) => {
          await changeSettings({ openId, batchLagMs: null });
          await resumeIt(number);
        },
      });
      expect(
        r.done.timeline.some((t) =>
          /found at the supplier after an unanswered create/.test(t.note ?? ''),
        ),
      ).toBe(true);
      expect(r.now.ordersCreated - r.before.ordersCreated).toBe(0);
      expect(r.now.payments - r.before.payments).toBe(1);
    } finally {
      await changeSettings({ openId, batchLagMs: null });
    }
  },

  /**
   * A lost create whose look-up keeps failing: resume once the supplier answers; the order is
   * found, not created again. (The order's own step: a batch's payment settles its doubt apart.)
   */
  async lookUpFailed() {
    const { openId } = h.account;
    await injectFault({ path: CREATE, kind: 'commitThenDrop', openId });
    await lookUpsKeepFailing(openId);
    try {
      const r = await stopAndRecover({
        harness: h,
        raw: flowB({}, { supplierLagSeconds: 3 }),
        stop: (s) => {
          expect(s.error?.step).toBe('createOrderV3 look-up');
          expect(s.outcomeUnknown?.step).toBe('createOrderV3');
          expect(s.waitingFor).toMatch(/^resume to look createOrderV3 up again/);
        },
        recover: async (number) => {
          await clearFaults(openId);
          await resumeIt(number);
        },
      });
      expect(r.done.outcomeUnknown).toBeUndefined();
      expectOnceEach(r);
    } finally {
      await clearFaults(openId);
    }
  },

  /**
   * The account's daily quota is used up: the order stops saying so, with a timer until the reset
   * that moves it on by itself; resume tries sooner. Created once.
   */
  async dailyQuota() {
    const { openId } = h.account;
    await injectFault({ path: CREATE, kind: 'quota', openId });
    try {
      let resetAt = 0;
      const r = await stopAndRecover({
        harness: h,
        raw: flowB(),
        stop: (s) => {
          expect(s.error).toMatchObject({ step: 'createOrderV3', code: SupplierCode.QuotaUsedUp });
          expect(s.error?.message).toMatch(/quota/i);
          expect(s.error?.requestId).toMatch(/\w+/);
          expect(s.waitingFor).toMatch(
            /^the account's daily request quota is used up until it resets at \d{4}-.*Z; dropflow tries createOrderV3 again by itself then — resume to try sooner, or cancel/,
          );
          resetAt = Date.parse(/resets at (\S+);/.exec(s.waitingFor!)![1]!);
        },
        recover: async (number) => {
          // Bounded: a timer until the next 00:00 UTC (at most a day) is what moves it on.
          const nextUtcDay = new Date();
          nextUtcDay.setUTCHours(24, 0, 0, 0);
          expect(Math.abs(resetAt - nextUtcDay.getTime())).toBeLessThan(60_000);
          const handle = h.client.workflow.getHandle(orderWorkflowId(number));
          expect(await longestTimerMs(handle)).toBeGreaterThan(resetAt - Date.now() - 60_000);
          await resumeIt(number);
        },
      });
      expect(after(r.done)).toContain(Stage.PAID);
      expectOnceEach(r);
    } finally {
      await clearFaults(openId);
    }
  },

  /** Defined with its own account below (a key the supplier does not know yet). */
  keyRefused: () => keyRefusedCase(),

  /**
   * The account's token expired and the token endpoints fail: past the workers' bound (known to
   * the order from its first token wait's answer, a minute in) the order stops saying since when.
   * Once the endpoints answer, the account has a token again and the order goes on by itself.
   * (The harness's workers hold the token in their own client, without a session workflow to
   * `reauth`: the order's side is the same either way.)
   */
  async noTokenSince() {
    const { openId } = h.account;
    expect((await expireTokens(openId)).status).toBe(200);
    for (const path of ['authentication/refreshAccessToken', 'authentication/getAccessToken']) {
      await injectFault({ path, kind: 'http5xx', forMs: 600_000, openId });
    }
    try {
      const r = await stopAndRecover({
        harness: h,
        raw: flowB(),
        timeoutMs: 180_000,
        stop: (s) => {
          expect(s.error?.message).toMatch(/^no token since \d{4}-/);
          expect(s.waitingFor).toMatch(
            /^the account's key works again \(dropflow account reauth .+\); the order goes on by itself/,
          );
        },
        // The token endpoints answer again: nobody acts on the order.
        recover: () => clearFaults(openId),
      });
      expect(
        r.done.timeline.some((t) => /^the account has an access token again/.test(t.note ?? '')),
      ).toBe(true);
      // Created once (the sandbox counts a rate-limited call too, which never acts).
      expectOnceEach(r);
    } finally {
      await clearFaults(openId);
    }
  },

  /** No line serves the route: amend the address to one a line serves. */
  async noLogisticsLine() {
    const raw = flowB(
      { shippingCountryCode: 'JP', shippingCountry: 'Japan' },
      { logistics: { policy: 'cheapest' } },
    );
    delete (raw as { logisticName?: string }).logisticName;
    const r = await stopAndRecover({
      harness: h,
      raw,
      stop: (s) => {
        expect(s.error).toMatchObject({
          step: 'freightCalculate',
          message: 'no logistics line serves this route',
        });
        expect(s.waitingFor).toMatch(
          /^resume to ask for freight again, or cancel; or amend the order/,
        );
      },
      recover: amendWith({ shippingCountryCode: 'US', shippingCountry: 'United States' }),
    });
    expect(after(r.done)).toContain(Stage.PAID);
    expectOnceEach(r);
  },

  /** Flow A from stock: no storage has enough units; amend the quantity. */
  async noStorageWithStock() {
    const r = await stopAndRecover({
      harness: h,
      raw: {
        ...usOrder({ products: [{ vid: 'P0001-V1', quantity: 100_000 }] }),
        fulfillment: { flow: 'A', storage: { mode: 'fromStock' }, waybill: waybill() },
      },
      stop: (s) => {
        expect(s.error).toMatchObject({
          step: 'queryInventoryByVid',
          message: 'no storage has stock for every line',
        });
        expect(s.waitingFor).toMatch(/^resume to check stock again, or cancel; or amend the order/);
      },
      recover: amendWith({ products: [{ vid: 'P0001-V1', quantity: 2 }] }),
    });
    expect(after(r.done)).toContain(Stage.PAID);
    expectOnceEach(r);
  },

  /** The sweeper flags an order the supplier went quiet about: resume follows it again. */
  async staleTracking() {
    const { number, handle } = await submitOrder(h, flowB());
    const waiting = await reaches(handle, Stage.AWAITING_SHIPMENT);
    const svcOrderId = waiting.svcOrderId!;
    const since = new Date().toISOString();
    // What the sweeper sends once the order has not been listed for its limit.
    await handle.signal(supplierStatusSignal, {
      messageId: `sweep:${svcOrderId}:${StaleReason.Missing}:${since}`,
      kind: 'stale',
      stale: {
        reason: StaleReason.Missing,
        since,
        note: `the supplier has not listed the order since ${since}, asked by svc order id ${svcOrderId}`,
      },
    });
    const s = await stopped(handle);
    expect(s.error?.step).toBe('tracking');
    expect(s.waitingFor).toMatch(/^resume to look at the supplier again, or open a dispute/);

    const before = await accountStats(h.account.openId);
    expect((await orders.resume(number, { by: 'test' })).accepted).toBe(true);
    await reaches(handle, Stage.AWAITING_SHIPMENT);
    // The supplier's news moves it on to the end.
    for (const status of ['SHIPPED', 'DELIVERED'] as const) {
      expect((await advance(svcOrderId, status)).status).toBe(200);
    }
    await handle.signal(supplierEventSignal, {
      messageId: `webhook-${svcOrderId}-delivered`,
      kind: 'order',
      svcOrderId,
      orderStatus: 'DELIVERED',
      proofOfDelivery: ['https://supplier.example.com/pod.jpg'],
    });
    const done = await reaches(handle, Stage.COMPLETED);
    expect(after(done)).toContain(Stage.DELIVERED);
    const now = await accountStats(h.account.openId);
    expect(now.payments - before.payments).toBe(0);
  },

  /** A dispute asking for a line the supplier does not offer: cancel, and ask again. */
  async disputeLinesRefused() {
    const { number, handle } = await submitOrder(h, flowB());
    await reaches(handle, Stage.AWAITING_SHIPMENT);
    const opened = await openDispute(orders, number, {
      lines: [{ lineItemId: 'no-such-line', quantity: 1 }],
      message: 'the wrong line',
    });
    const dispute = h.client.workflow.getHandle(opened.workflowId);
    const s = await eventually(
      `dispute ${opened.workflowId} stops`,
      () => dispute.query(disputeStatusQuery),
      (d) => d.stage === 'NEEDS_ATTENTION' && d.waitingFor !== undefined,
      120_000,
    );
    expect(s.error).toMatchObject({ step: 'disputeProducts' });
    expect(s.waitingFor).toMatch(/^cancel, and ask again with lines the supplier offers/);
    const creates = async () => calls(await accountStats(h.account.openId), 'disputes/create');
    const createsBefore = await creates();

    const cancelled = await cancelDisputeWorkflow(orders, number, opened.workflowId, {
      reason: 'asked for the wrong line',
    });
    expect(cancelled.accepted).toBe(true);
    const ended = await eventually(
      `dispute ${opened.workflowId} cancelled`,
      () => dispute.query(disputeStatusQuery),
      (d) => d.stage === 'CANCELLED',
    );
    expect(ended.stage).toBe('CANCELLED');
    // Asked again with the lines the supplier offers: it opens, once.
    const again = await openDispute(orders, number, { message: 'every line' });
    await eventually(
      `dispute ${again.workflowId} open`,
      () => h.client.workflow.getHandle(again.workflowId).query(disputeStatusQuery),
      (d) => d.stage === 'OPEN',
      120_000,
    );
    expect((await creates()) - createsBefore).toBe(1);
    expect((await handle.query(statusQuery)).stage).not.toBe(Stage.NEEDS_ATTENTION);
  },

  /**
   * An accepted createDispute the supplier's list still lacks after its lag bound: resume looks
   * again once it is listed, and adopts it without creating again.
   */
  async disputeNotListed() {
    const { openId } = h.account;
    const { number, handle } = await submitOrder(h, flowB());
    const { svcOrderId } = await reaches(handle, Stage.AWAITING_SHIPMENT);
    await disputeListLag(openId, 600_000);
    try {
      const opened = await openDispute(orders, number, {
        message: 'listed late',
        checkEverySeconds: 60,
      });
      const dispute = h.client.workflow.getHandle(opened.workflowId);
      const s = await eventually(
        `dispute ${opened.workflowId} stops`,
        () => dispute.query(disputeStatusQuery),
        (d) => d.stage === 'NEEDS_ATTENTION' && d.waitingFor !== undefined,
        150_000,
      );
      expect(s.error?.step).toBe('createDispute');
      expect(s.waitingFor).toMatch(/resume to look again, or cancel/);

      await disputeListLag(openId, null);
      await resumeDispute(opened.workflowId);
      const open = await eventually(
        `dispute ${opened.workflowId} open`,
        () => dispute.query(disputeStatusQuery),
        (d) => d.stage === 'OPEN',
        120_000,
      );
      // Adopted, not created again: the supplier has the one dispute for the order.
      const { list } = await h.account.client.api.getDisputeList({ orderId: svcOrderId! });
      expect(list.map((x) => x.id)).toEqual([open.disputeId]);
    } finally {
      await disputeListLag(openId, null);
    }
  },
};

describe('each kind, recovered by the action it names', () => {
  for (const [kind, recover] of Object.entries(RECOVERIES)) {
    if (kind === 'keyRefused') continue;
    it(kind, recover, 300_000);
  }
});

/** The longest timer the workflow started (ms). */
async function longestTimerMs(handle: WorkflowHandle): Promise<number> {
  const { events } = await handle.fetchHistory();
  return Math.max(
    0,
    ...(events ?? []).map((e) => {
      const t = e.timerStartedEventAttributes?.startToFireTimeout;
      return t == null ? 0 : Number(t.seconds ?? 0) * 1_000;
    }),
  );
}

// ---- disputes as an operator acts on them ---------------------------------------------------

async function sandboxPost(path: string, body: unknown): Promise<Response> {
  return fetch(`${sandboxUrl()}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** New disputes reach the account's dispute list only `ms` after they opened (null: at once). */
async function disputeListLag(openId: string, ms: number | null): Promise<void> {
  expect((await sandboxPost('/__sandbox/settings', { openId, disputeLagMs: ms })).status).toBe(200);
}

/** `resume` of the dispute workflow, as the operator UI sends it. */
async function resumeDispute(workflowId: string): Promise<void> {
  const answer = await h.client.workflow
    .getHandle(workflowId)
    .executeUpdate(resumeUpdate, { args: [{ by: 'test' }] });
  expect(answer.accepted).toBe(true);
}

// ---- a key the supplier refuses: its own account ------------------------------------------

/** A key the sandbox does not know until the case creates its account. */
const laterKey = `sbx_later_${randomBytes(8).toString('hex')}`;
let keyed: OrderHarness;

async function keyRefusedCase(): Promise<void> {
  const { handle } = await submitOrder(keyed, flowB());
  const s = await stopped(handle);
  expect(s.error).toMatchObject({ code: SupplierCode.UserNotFound });
  expect(s.error?.message).toMatch(/^supplier key refused: /);
  const account = queuePrefix(keyed.queues) || 'default';
  expect(s.waitingFor).toMatch(
    new RegExp(
      `^the account's key works again \\(dropflow account reauth ${account}\\); the order goes on by itself — or cancel`,
    ),
  );

  // The key is mended at the supplier (the account exists now); nobody acts on the order.
  const mended = await newSandboxAccount(undefined, undefined, laterKey);
  const done = await reaches(handle, Stage.AWAITING_SHIPMENT);
  expect(after(done)).toContain(Stage.PAID);
  const stats = await accountStats(mended.openId);
  expect(stats.ordersCreated).toBe(1);
  expect(stats.payments).toBe(1);
}

describe('a key the supplier refuses', () => {
  const harness = useOrderHarness('attention-key', undefined, () => ({
    account: {
      url: sandboxUrl(),
      apiKey: laterKey,
      openId: '',
      client: new SupplierClient({
        baseUrl: sandboxUrl(),
        apiKey: laterKey,
        tokenCallIntervalMs: 1_000,
      }),
    },
  }));
  beforeAll(() => {
    keyed = harness;
  });
  it('keyRefused', () => RECOVERIES.keyRefused(), 300_000);
});
