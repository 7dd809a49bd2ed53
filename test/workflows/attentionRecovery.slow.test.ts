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
  resumeUpdate,
  Stage,
  StaleReason,
  statusQuery,
  supplierEventSignal,
  supplierStatusSignal,
  type OrderStatus,
} from '../../src/order/contract.js';
import { SupplierClient } from '../../src/supplier/client.js';
import { SupplierCode } from '../../src/supplier/errors.js';
import { queuePrefix } from '../../src/temporal/taskQueues.js';
import { changeSettings, expireTokens } from '../sandbox/controls.js';
import { eventually } from '../support/eventually.js';
import { nameScenario } from '../support/histories.js';
import { useOrderHarness, type OrderHarness } from '../support/orders.js';
import {
  accountStats,
  clearFaults,
  injectFault,
  newSandboxAccount,
  sandboxUrl,
} from '../support/sandbox.js';
import { advance, usOrder } from '../supplier/orderHelpers.js';
import { lookUpsKeepFailing } from './reconcile-support.js';

type AttentionKind =
  | 'supplierRefusal'
  | 'retriesExhausted'
  | 'doubtfulAnswer'
  | 'lookUpFailed'
  | 'keyRefused'
  | 'noTokenSince'
  | 'noLogisticsLine'
  | 'noStorageWithStock'
  | 'staleTracking'
  | 'disputeLinesRefused'
  | 'disputeNoReason'
  | 'disputeNotListed';

/**
 * Every source file that stops a workflow at NEEDS_ATTENTION: its places (calls of
 * `needsAttention(`, entries of `Stage.NEEDS_ATTENTION`) and the kinds they stop for.
 */
const ATTENTION_SITES: Record<string, { places: number; kinds: AttentionKind[] }> = {
  // The stop itself (Order.needsAttention, DisputeCase.needsAttention): its callers' kinds below.
  // A checkout batch stops no order itself: what it cannot settle it hands back (batch.ts), and
  // the order's own steps below stop for it; a batch look-up that kept failing, the order stops
  // for at once with the batch's failure (batchedCheckout.ts).
  'src/order/order.ts': { places: 2, kinds: [] },
  'src/checkout/batchedCheckout.ts': { places: 1, kinds: ['lookUpFailed'] },
  'src/dispute/disputeCase.ts': { places: 1, kinds: [] },
  // supplierStep: doubtful answers, any other failure (a refusal with its code, or transient
  // failures past their attempts), a look-up that keeps failing; supplierCall: a refusal.
  'src/durable/supplierStep.ts': {
    places: 4,
    kinds: ['supplierRefusal', 'retriesExhausted', 'doubtfulAnswer', 'lookUpFailed'],
  },
  'src/durable/tokenWait.ts': { places: 1, kinds: ['keyRefused', 'noTokenSince'] },
  'src/order/steps/plan.ts': { places: 2, kinds: ['noLogisticsLine', 'noStorageWithStock'] },
  'src/order/steps/shipment.ts': { places: 1, kinds: ['staleTracking'] },
  'src/dispute/disputeOrder.ts': {
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
    const recovered = [...Object.keys(RECOVERIES), ...Object.keys(NOT_PROVOKABLE)];
    expect([...recovered].sort()).toEqual([...new Set(enumerated)].sort());
  });

  it('the dispute reasons the sandbox cannot provoke still name their action', () => {
    const source = readFileSync(
      join(import.meta.dirname, '..', '..', 'src/dispute/disputeOrder.ts'),
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

type Stats = Awaited<ReturnType<typeof accountStats>>;
const calls = (s: Stats, path: string) => s.calls[path] ?? 0;

/** Submits as `dropflow submit` does. */
async function submit(harness: OrderHarness, raw: Record<string, unknown>) {
  const client = new OrderClient(harness.client, harness.queues);
  nameScenario(`order:${String(raw.orderNumber)}`);
  const result = await client.submit(raw);
  expect(result.outcome).toBe('started');
  return {
    number: String(raw.orderNumber),
    handle: harness.client.workflow.getHandle(result.workflowId),
  };
}

function flowB(overrides: Record<string, unknown> = {}, fulfillment: Record<string, unknown> = {}) {
  return { ...usOrder(), ...overrides, fulfillment: { flow: 'B', ...fulfillment } };
}

/** The order stopped at NEEDS_ATTENTION (and says what moves it on): its status. */
function stopped(handle: WorkflowHandle, timeoutMs = 120_000): Promise<OrderStatus> {
  return eventually(
    `${handle.workflowId} at NEEDS_ATTENTION`,
    () => handle.query(statusQuery),
    (s) => {
      if (s.stage === Stage.CANCELLED || s.stage === Stage.COMPLETED) {
        throw new Error(`order ended ${s.stage} before it stopped`);
      }
      return s.stage === Stage.NEEDS_ATTENTION && s.waitingFor !== undefined;
    },
    timeoutMs,
  );
}

/** The order left NEEDS_ATTENTION and reached `stage` without stopping again. */
function reaches(handle: WorkflowHandle, stage: Stage, timeoutMs = 120_000): Promise<OrderStatus> {
  return eventually(
    `${handle.workflowId} at ${stage}`,
    () => handle.query(statusQuery),
    (s) => {
      if (s.stage === Stage.CANCELLED && stage !== Stage.CANCELLED) {
        throw new Error(`order ended CANCELLED waiting for ${stage}`);
      }
      return s.stage === stage;
    },
    timeoutMs,
  );
}

/** Stages after the last NEEDS_ATTENTION: the order went on, and did not stop again. */
function after(s: OrderStatus): Stage[] {
  const stages = s.timeline.map((t) => t.stage);
  return stages.slice(stages.lastIndexOf(Stage.NEEDS_ATTENTION) + 1);
}

const waybill = () => ({
  carrier: 'SF Express',
  trackNumber: `SF${Date.now()}`,
  filename: 'label.pdf',
  contentBase64: Buffer.from('%PDF-1.4 label').toString('base64'),
});

const RECOVERIES: Record<Exclude<AttentionKind, 'disputeNoReason'>, () => Promise<void>> = {
  /** A refusal with its code before the supplier has the order: amend. */
  async supplierRefusal() {
    const before = await accountStats(h.account.openId);
    const { number, handle } = await submit(
      h,
      flowB({ products: [{ vid: 'P9999-V9', quantity: 2 }] }),
    );
    const s = await stopped(handle);
    expect(s.error).toMatchObject({ step: 'createOrderV3', code: SupplierCode.ParamError });
    expect(s.error?.requestId).toMatch(/\w+/);
    expect(s.waitingFor).toMatch(/^amend the order \(field products\[0\]\.vid\) or cancel/);

    const answer = await orders.amend(number, {
      order: { products: [{ vid: 'P0001-V1', quantity: 2 }] },
      by: 'test',
    });
    expect(answer.accepted).toBe(true);
    const done = await reaches(handle, Stage.AWAITING_SHIPMENT);
    expect(after(done)).toContain(Stage.PAID);
    const now = await accountStats(h.account.openId);
    expect(now.ordersCreated - before.ordersCreated).toBe(1);
    expect(calls(now, PAY) - calls(before, PAY)).toBe(1);
  },

  /** A read that keeps failing past its attempts: resume once the supplier answers. */
  async retriesExhausted() {
    const { openId } = h.account;
    await injectFault({ path: FREIGHT, kind: 'http5xx', times: 100, openId });
    try {
      const raw = flowB({}, { logistics: { policy: 'cheapest' } });
      delete (raw as { logisticName?: string }).logisticName;
      const { number, handle } = await submit(h, raw);
      const s = await stopped(handle);
      expect(s.error?.step).toBe('freightCalculate');
      expect(s.waitingFor).toMatch(/^resume after the cause of freightCalculate is fixed/);

      await clearFaults(openId);
      const before = await accountStats(openId);
      expect((await orders.resume(number, { by: 'test' })).accepted).toBe(true);
      const done = await reaches(handle, Stage.AWAITING_SHIPMENT);
      expect(after(done)).toContain(Stage.PAID);
      const now = await accountStats(openId);
      // Created once (the sandbox counts a rate-limited call too, which never acts).
      expect(now.ordersCreated - before.ordersCreated).toBe(1);
      expect(now.duplicateCreatesRefused - before.duplicateCreatesRefused).toBe(0);
      expect(now.payments - before.payments).toBe(1);
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
      const before = await accountStats(openId);
      const { number, handle } = await submit(h, raw);
      const s = await stopped(handle);
      expect(s.error).toMatchObject({ step: 'createOrderV3', code: SupplierCode.DuplicateOrder });
      expect(s.waitingFor).toMatch(/^check createOrderV3 at the supplier: .*resume to look again/);

      await changeSettings({ openId, batchLagMs: null });
      expect((await orders.resume(number, { by: 'test' })).accepted).toBe(true);
      const done = await reaches(handle, Stage.AWAITING_SHIPMENT);
      expect(
        done.timeline.some((t) =>
          /found at the supplier after an unanswered create/.test(t.note ?? ''),
        ),
      ).toBe(true);
      const now = await accountStats(openId);
      expect(now.ordersCreated - before.ordersCreated).toBe(0);
      expect(now.payments - before.payments).toBe(1);
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
    const before = await accountStats(openId);
    await injectFault({ path: CREATE, kind: 'commitThenDrop', openId });
    await lookUpsKeepFailing(openId);
    try {
      const { number, handle } = await submit(h, flowB({}, { supplierLagSeconds: 3 }));
      const s = await stopped(handle);
      expect(s.error?.step).toBe('createOrderV3 look-up');
      expect(s.outcomeUnknown?.step).toBe('createOrderV3');
      expect(s.waitingFor).toMatch(/^resume to look createOrderV3 up again/);

      await clearFaults(openId);
      expect((await orders.resume(number, { by: 'test' })).accepted).toBe(true);
      const done = await reaches(handle, Stage.AWAITING_SHIPMENT);
      expect(done.outcomeUnknown).toBeUndefined();
      const now = await accountStats(openId);
      expect(now.ordersCreated - before.ordersCreated).toBe(1);
      expect(now.duplicateCreatesRefused - before.duplicateCreatesRefused).toBe(0);
      expect(now.payments - before.payments).toBe(1);
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
      const before = await accountStats(openId);
      const { handle } = await submit(h, flowB());
      const s = await stopped(handle, 180_000);
      expect(s.error?.message).toMatch(/^no token since \d{4}-/);
      expect(s.waitingFor).toMatch(
        /^the account's key works again \(dropflow account reauth .+\); the order goes on by itself/,
      );

      // The token endpoints answer again: nobody acts on the order.
      await clearFaults(openId);
      const done = await reaches(handle, Stage.AWAITING_SHIPMENT, 180_000);
      expect(
        done.timeline.some((t) => /^the account has an access token again/.test(t.note ?? '')),
      ).toBe(true);
      const now = await accountStats(openId);
      // Created once (the sandbox counts a rate-limited call too, which never acts).
      expect(now.ordersCreated - before.ordersCreated).toBe(1);
      expect(now.duplicateCreatesRefused - before.duplicateCreatesRefused).toBe(0);
      expect(now.payments - before.payments).toBe(1);
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
    const before = await accountStats(h.account.openId);
    const { number, handle } = await submit(h, raw);
    const s = await stopped(handle);
    expect(s.error).toMatchObject({
      step: 'freightCalculate',
      message: 'no logistics line serves this route',
    });
    expect(s.waitingFor).toMatch(/^resume to ask for freight again, or cancel; or amend the order/);

    const answer = await orders.amend(number, {
      order: { shippingCountryCode: 'US', shippingCountry: 'United States' },
      by: 'test',
    });
    expect(answer.accepted).toBe(true);
    const done = await reaches(handle, Stage.AWAITING_SHIPMENT);
    expect(after(done)).toContain(Stage.PAID);
    const now = await accountStats(h.account.openId);
    expect(now.ordersCreated - before.ordersCreated).toBe(1);
    expect(now.payments - before.payments).toBe(1);
  },

  /** Flow A from stock: no storage has enough units; amend the quantity. */
  async noStorageWithStock() {
    const before = await accountStats(h.account.openId);
    const { number, handle } = await submit(h, {
      ...usOrder({ products: [{ vid: 'P0001-V1', quantity: 100_000 }] }),
      fulfillment: { flow: 'A', storage: { mode: 'fromStock' }, waybill: waybill() },
    });
    const s = await stopped(handle);
    expect(s.error).toMatchObject({
      step: 'queryInventoryByVid',
      message: 'no storage has stock for every line',
    });
    expect(s.waitingFor).toMatch(/^resume to check stock again, or cancel; or amend the order/);

    const answer = await orders.amend(number, {
      order: { products: [{ vid: 'P0001-V1', quantity: 2 }] },
      by: 'test',
    });
    expect(answer.accepted).toBe(true);
    const done = await reaches(handle, Stage.AWAITING_SHIPMENT);
    expect(after(done)).toContain(Stage.PAID);
    const now = await accountStats(h.account.openId);
    expect(now.ordersCreated - before.ordersCreated).toBe(1);
    expect(now.payments - before.payments).toBe(1);
  },

  /** The sweeper flags an order the supplier went quiet about: resume follows it again. */
  async staleTracking() {
    const { number, handle } = await submit(h, flowB());
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
    const { number, handle } = await submit(h, flowB());
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
    const { number, handle } = await submit(h, flowB());
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
  const { handle } = await submit(keyed, flowB());
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
