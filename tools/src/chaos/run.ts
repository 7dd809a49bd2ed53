/**
 * A chaos run: N orders of flows A, B and C on a real Temporal dev server and the real sandbox,
 * while the fault plan injects lost answers, busy and rate-limited answers, slow calls, dropped
 * connections, an expired token, SIGKILLs of the worker and a restart of the Temporal server; a
 * couple of disputes are opened with their create's answer lost. Then every order's outcome is
 * compared with the sandbox's record (measure.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
  disputeStatus,
  openDispute,
  Stage,
  type OrderStatus,
  OrderConflictError,
  OrderInvalidError,
  type OrderClient,
} from 'dropflow/client';
import { supplierSessionId } from 'dropflow/contracts/session';
import { createLogger } from 'dropflow/log';
import { queuePrefix } from 'dropflow/temporal';
import { checkoutWorkflowId } from 'dropflow/contracts/checkout';
import { disputeSettled, judge, orderSettled } from './measure.js';
import { observe } from './observe.js';
import { checkoutBudgetsUnder, LOWERED_LIMITS } from './limits.js';
import { reauth, resetToLastWorkflowTask, terminate, type OperatedRun } from './operator.js';
import { chaosOrders, type ChaosOrder } from './orders.js';
import {
  DISPUTE_CREATE_PATH,
  Disruption,
  faultPlan,
  SUBMISSION_SHARE,
  windowFor,
  type PlannedStep,
  type PlanOptions,
} from './plan.js';
import { Random } from './random.js';
import { ordersToSplit, splitOrders } from './parcels.js';
import { failingCounters, summary, type ChaosReport } from './report.js';
import { startStack, type ChaosStack } from './stack.js';
import { Tally } from './tally.js';
import { delay } from '../localStack/wait.js';

export interface ChaosOptions extends Omit<PlanOptions, 'windowMs'> {
  seed: number;
  /** The account's tier rate, for the sandbox and the worker alike. */
  ratePerSecond: number;
  batchRatePerSecond: number;
  trackingEverySeconds: number;
  /** Milliseconds between the sandbox's automatic steps of a paid order. */
  lifecycleStepMs: number;
  /** How late the batch order query sees new orders and payments (0 = off). */
  batchLagMs: number;
  /** Start the dev server with lowered history and signal limits (limits.ts). */
  loweredLimits: boolean;
  /** Disputes to open, each with its create's answer lost. */
  disputes: number;
  /** Share of the orders with more than one line that the sandbox splits (0 to 1). */
  splits: number;
  gateway: boolean;
  /** Faults spread over this many ms (default: windowFor(orders)). */
  windowMs?: number;
  /** Give up waiting for the orders to settle after this many ms (default: deadlineFor). */
  deadlineMs?: number;
  /** Keep the logs and databases even when the run passes. */
  keep: boolean;
  progress: (line: string) => void;
}

export const DEFAULT_CHAOS_OPTIONS: Omit<ChaosOptions, 'orders' | 'seed' | 'progress'> = {
  ratePerSecond: 4,
  batchRatePerSecond: 2,
  trackingEverySeconds: 3,
  lifecycleStepMs: 1_000,
  batchLagMs: 2_000,
  kills: 3,
  latencyCalls: 1,
  latencyMs: 65_000,
  quota: false,
  // Off by default: a terminated session's new token can be held for minutes by a rate-limit
  // storm on getAccessToken, longer than the run's deadline (see the chaos suite in docs/tools.md).
  operatorFaults: false,
  tokenFaults: false,
  loweredLimits: false,
  disputes: 2,
  splits: 0,
  gateway: true,
  keep: false,
};

/**
 * With `--token-faults`, 5 minutes more: the supplier spaces getAccessToken 5 minutes apart, so
 * after the refused key the session's next try (a reauth's too) may come that much later.
 */
export const TOKEN_FAULTS_EXTRA_MS = 5 * 60_000;

export function deadlineFor(orders: number, tokenFaults = false): number {
  return 300_000 + orders * 8_000 + (tokenFaults ? TOKEN_FAULTS_EXTRA_MS : 0);
}

const POLL_MS = 2_000;
const QUERY_DEADLINE_MS = 5_000;
const REAUTH_DEADLINE_MS = 60_000;
const PARALLEL_QUERIES = 8;
const SUBMIT_TIMEOUT_MS = 120_000;
const DISPUTABLE: ReadonlySet<Stage> = new Set([Stage.SHIPPED, Stage.DELIVERED, Stage.COMPLETED]);

interface Dispute {
  workflowId: string;
  orderNumber: string;
}

export async function runChaos(opts: ChaosOptions): Promise<ChaosReport> {
  const started = Date.now();
  const runId = started.toString(36).slice(-5);
  const log = createLogger('chaos');
  const notes: string[] = [];
  const workDir = await mkdtemp(join(tmpdir(), 'dropflow-chaos-'));
  const say = opts.progress;
  say(`chaos: ${opts.orders} orders, seed ${opts.seed}, run ${runId}, files in ${workDir}`);

  const loweredLimits = opts.loweredLimits ? LOWERED_LIMITS : undefined;
  if (loweredLimits !== undefined) {
    say(
      `checkout budgets under the lowered limits: ${JSON.stringify(checkoutBudgetsUnder(loweredLimits))}`,
    );
  }
  const stack = await startStack({ ...opts, loweredLimits, workDir, log, notes });
  let report: ChaosReport;
  try {
    const orders = await chaosOrders(
      opts.orders,
      opts.seed,
      runId,
      Math.max(10, Math.ceil((5 * opts.batchLagMs) / 1000)),
    );
    const windowMs = opts.windowMs ?? windowFor(opts.orders);
    const plan = faultPlan(new Random(opts.seed), { ...opts, windowMs });
    const t0 = Date.now();
    const clock = (): string => `t+${Math.round((Date.now() - t0) / 1000)}s`;
    const log2 = (line: string): void => {
      say(`${clock()} ${line}`);
    };
    const tally = new Tally();
    const operated: OperatedRun[] = [];
    const latest = new Map<string, OrderStatus>();
    const disputes: Dispute[] = [];
    const flags = { submitted: false, planned: false, disputing: true, stop: false };

    const submitting = submitAll(
      stack.orders,
      orders,
      t0,
      windowMs * SUBMISSION_SHARE,
      flags,
      log2,
    ).finally(() => {
      flags.submitted = true;
    });
    const stepping = runPlan(stack, plan, t0, { tally, notes, operated }, flags, log2).finally(
      () => {
        flags.planned = true;
      },
    );
    const chosen = ordersToSplit(orders, opts.splits, new Random(opts.seed + 1));
    const splitting = splitOrders(
      stack.sandbox.sandbox,
      stack.controls.openId,
      chosen,
      () => flags.stop,
    ).then((split) => {
      if (chosen.size > 0) log2(`split ${split.size} of the ${chosen.size} orders chosen`);
    });
    const disputing = openDisputes(
      stack,
      opts.disputes,
      latest,
      disputes,
      tally,
      flags,
      log2,
    ).finally(() => {
      flags.disputing = false;
    });
    // Either failing ends the run; both done, the waiting goes on.
    const failure = Promise.all([submitting, stepping]).then(
      () => new Promise<never>(() => undefined),
    );
    const deadline = t0 + (opts.deadlineMs ?? deadlineFor(opts.orders, opts.tokenFaults));
    const wanted = { disputes: opts.disputes };
    try {
      await Promise.race([
        waitUntilSettled(stack, orders, disputes, wanted, latest, flags, deadline, log2),
        failure,
      ]);
    } finally {
      flags.stop = true;
      await Promise.allSettled([submitting, stepping, disputing, splitting]);
    }
    if (Date.now() > deadline) notes.push('the deadline passed before every order settled');

    log2('measuring');
    const observation = await observe(
      stack.orders,
      orders,
      disputes,
      stack.sandbox.sandbox,
      stack.controls.openId,
      operated,
    );
    const faults = tally.result(await stack.controls.pendingFaults());
    const verdict = judge(observation);
    report = {
      seed: opts.seed,
      runId,
      durationMs: 0,
      verdict,
      faults,
      notes,
      workDir: undefined,
      ...(loweredLimits !== undefined && { loweredLimits }),
    };
  } finally {
    await stack.close();
  }
  const keep = opts.keep || failingCounters(summary(report)).length > 0;
  if (keep) report.workDir = workDir;
  else await rm(workDir, { recursive: true, force: true });
  report.durationMs = Date.now() - started;
  return report;
}

/** Submits the orders spread over `spreadMs`, each until Temporal takes it. */
async function submitAll(
  client: OrderClient,
  orders: readonly ChaosOrder[],
  t0: number,
  spreadMs: number,
  flags: { stop: boolean },
  say: (line: string) => void,
): Promise<void> {
  for (const [i, order] of orders.entries()) {
    await delay(t0 + (i * spreadMs) / orders.length - Date.now());
    if (flags.stop) return;
    const until = Date.now() + SUBMIT_TIMEOUT_MS;
    for (;;) {
      try {
        await client.submit(order.body);
        break;
      } catch (err) {
        // Wrong input never gets better; anything else (the server restarting) may.
        if (err instanceof OrderInvalidError || err instanceof OrderConflictError) throw err;
        if (Date.now() > until) throw err;
        await delay(POLL_MS);
      }
    }
  }
  say(`all ${orders.length} orders submitted`);
}

/** What the plan's steps leave behind: faults counted, notes, runs the chaos ended itself. */
interface PlanRecord {
  tally: Tally;
  notes: string[];
  operated: OperatedRun[];
}

async function runPlan(
  stack: ChaosStack,
  plan: readonly PlannedStep[],
  t0: number,
  { tally, notes, operated }: PlanRecord,
  flags: { stop: boolean },
  say: (line: string) => void,
): Promise<void> {
  for (const step of plan) {
    await delay(t0 + step.at - Date.now());
    if (flags.stop) return;
    if (step.type === 'fault') {
      const f = step.fault;
      if (await stack.controls.addFault(f)) {
        if (f.forMs === undefined) tally.arm(f.kind, f.times);
        else tally.count(`${f.kind}Window`);
        say(`armed ${f.kind}×${f.forMs === undefined ? f.times : `${f.forMs} ms`} on ${f.path}`);
      } else {
        notes.push(`fault ${f.kind}: not injected (this sandbox does not know it)`);
      }
      continue;
    }
    say(step.type);
    switch (step.type) {
      case Disruption.kill9:
        await stack.killWorker();
        break;
      case Disruption.serverRestart:
        await stack.temporal.restart();
        break;
      case Disruption.tokenExpire:
        if (!(await stack.controls.expireTokens())) {
          notes.push('token expiry: not injected (this sandbox has no /__sandbox/tokens/expire)');
          continue;
        }
        break;
      case Disruption.reauth: {
        const answer = await reauthSession(stack).catch((err: unknown) =>
          err instanceof Error ? err.message : String(err),
        );
        const when = `t+${Math.round((Date.now() - t0) / 1000)}s`;
        if (typeof answer !== 'object') {
          notes.push(`reauth: not done at ${when} (${answer ?? 'no session ran'})`);
          continue;
        }
        notes.push(`reauth at ${when}: ${answer.outcome} (${answer.message})`);
        break;
      }
      default: {
        // An operator's step that Temporal refuses (the server restarting, say) is noted, not fatal.
        const run = await operate(stack, step.type).catch((err: unknown) =>
          err instanceof Error ? err.message : String(err),
        );
        if (typeof run !== 'object') {
          const when = `t+${Math.round((Date.now() - t0) / 1000)}s`;
          notes.push(`${step.type}: not done at ${when} (${run ?? 'its workflow did not run'})`);
          continue;
        }
        operated.push(run);
      }
    }
    tally.count(step.type);
    say(`${step.type} done`);
  }
}

type OperatorDisruption = Exclude<
  Disruption,
  | typeof Disruption.kill9
  | typeof Disruption.serverRestart
  | typeof Disruption.tokenExpire
  | typeof Disruption.reauth
>;

/** `dropflow account reauth` for the run's account, bounded: the worker may be restarting. */
function reauthSession(stack: ChaosStack): ReturnType<typeof reauth> {
  const client = stack.orders.client;
  const sessionId = supplierSessionId(queuePrefix(stack.orders.queues));
  return client.connection.withDeadline(Date.now() + REAUTH_DEADLINE_MS, () =>
    reauth(client, sessionId),
  );
}

/** Terminates or resets the account's coordinator or session, as an operator may. */
function operate(stack: ChaosStack, step: OperatorDisruption): Promise<OperatedRun | undefined> {
  const client = stack.orders.client;
  const prefix = queuePrefix(stack.orders.queues);
  switch (step) {
    case Disruption.terminateCheckout:
      return terminate(client, checkoutWorkflowId(prefix));
    case Disruption.resetCheckout:
      return resetToLastWorkflowTask(client, checkoutWorkflowId(prefix));
    case Disruption.terminateSession:
      return terminate(client, supplierSessionId(prefix));
    case Disruption.resetSession:
      return resetToLastWorkflowTask(client, supplierSessionId(prefix));
  }
}

/**
 * Opens `count` disputes on orders once shipped (or later), each after arming a lost answer on
 * the dispute create, as `dropflow dispute` would open them.
 */
async function openDisputes(
  stack: ChaosStack,
  count: number,
  latest: ReadonlyMap<string, OrderStatus>,
  disputes: Dispute[],
  tally: Tally,
  flags: { stop: boolean },
  say: (line: string) => void,
): Promise<void> {
  // Read through a function: the flag changes while this loop awaits.
  const stopped = (): boolean => flags.stop;
  while (!stopped() && disputes.length < count) {
    const candidate = [...latest.values()].find(
      (s) => DISPUTABLE.has(s.stage) && !disputes.some((d) => d.orderNumber === s.orderNumber),
    );
    if (candidate === undefined) {
      await delay(POLL_MS);
      continue;
    }
    if (
      await stack.controls.addFault({ path: DISPUTE_CREATE_PATH, kind: 'commitThenDrop', times: 1 })
    ) {
      tally.arm('commitThenDrop', 1);
    }
    for (;;) {
      try {
        const opened = await openDispute(stack.orders, candidate.orderNumber, {
          message: 'chaos: the parcel arrived damaged',
          checkEverySeconds: 3,
        });
        disputes.push({ workflowId: opened.workflowId, orderNumber: candidate.orderNumber });
        say(`dispute opened for ${candidate.orderNumber} (${candidate.stage})`);
        break;
      } catch (err) {
        if (stopped()) return;
        log(err);
        await delay(POLL_MS);
      }
    }
  }

  function log(err: unknown): void {
    say(`opening a dispute failed, trying again: ${err instanceof Error ? err.name : 'error'}`);
  }
}

/**
 * A query that gives up after a few seconds (undefined): a workflow whose task fails, or a worker
 * being started again, would otherwise hold the poll for the server's 30 s.
 */
function quickly<T>(stack: ChaosStack, query: () => Promise<T>): Promise<T | undefined> {
  const connection = stack.orders.client.connection;
  return connection.withDeadline(Date.now() + QUERY_DEADLINE_MS, query).catch(() => undefined);
}

/** Polls until every order and dispute settled, the plan is done and the disputes are opened. */
async function waitUntilSettled(
  stack: ChaosStack,
  orders: readonly ChaosOrder[],
  disputes: readonly Dispute[],
  wanted: { disputes: number },
  latest: Map<string, OrderStatus>,
  flags: { submitted: boolean; planned: boolean; disputing: boolean },
  deadline: number,
  say: (line: string) => void,
): Promise<void> {
  const final = new Set<string>();
  let lastLine = '';
  while (Date.now() < deadline) {
    const open = orders.filter((o) => !final.has(o.orderNumber));
    let settled = orders.length - open.length;
    // A few queries at a time: a round of 50 one by one would trail the orders by minutes.
    for (let i = 0; i < open.length; i += PARALLEL_QUERIES) {
      const batch = open.slice(i, i + PARALLEL_QUERIES);
      const answers = await Promise.all(
        batch.map((o) => quickly(stack, () => stack.orders.status(o.orderNumber))),
      );
      for (const status of answers) {
        if (status === undefined) continue;
        latest.set(status.orderNumber, status);
        if (status.stage === Stage.COMPLETED || status.stage === Stage.CANCELLED) {
          final.add(status.orderNumber);
        }
        if (orderSettled(status)) settled += 1;
      }
    }
    let disputesSettled = 0;
    for (const d of disputes) {
      const status = await quickly(stack, () => disputeStatus(stack.orders, d.workflowId));
      if (status !== undefined && disputeSettled(status)) disputesSettled += 1;
    }
    const line = `${settled}/${orders.length} orders settled, ${disputesSettled}/${disputes.length} disputes`;
    if (line !== lastLine) say(line);
    lastLine = line;
    const ordersDone = flags.submitted && settled === orders.length;
    // Once every order settled, no order becomes disputable any more.
    const disputable = [...latest.values()].some(
      (s) => DISPUTABLE.has(s.stage) && !disputes.some((d) => d.orderNumber === s.orderNumber),
    );
    const disputesDone =
      !flags.disputing || disputes.length >= wanted.disputes || (ordersDone && !disputable);
    if (ordersDone && flags.planned && disputesDone && disputesSettled === disputes.length) return;
    await delay(POLL_MS);
  }
}
