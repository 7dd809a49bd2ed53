/**
 * `trackingSweeper` (id `tracking-sweep:<account>`): the account's one long-running tracking
 * sweeper. It sweeps (trackingSweep.ts tells what a sweep does, page by page through
 * sweepPage.ts), waits `everySeconds`, and sweeps again, keeping what it remembers of the orders
 * in its own state. It continues as new only when its history grows heavy, so the workflow list
 * shows one sweeper per account instead of one run per sweep. Every worker ensures it at start
 * (tracking/sweeperStart.ts): a `sweeperSettings` signal changes its interval and limits, a
 * `sweepNow` signal starts the next sweep at once; the `sweeperStatus` query tells the last one.
 */
import {
  CancellationScope,
  condition,
  continueAsNew,
  log,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import { Patch } from '../durable/versions.js';
import { shouldContinueAsNew } from '../durable/longRunning.js';
import { followAccountTier } from '../durable/account.js';
import {
  lookAtPushed,
  MISSING_AFTER_SECONDS,
  noCounts,
  PAGE_SIZE,
  previousMemory,
  STALE_AFTER_SECONDS,
} from './sweepPage.js';
import { sweepPages } from './sweepPages.js';
import { afterSweep, bounded, emptyMemory, type SweepMemory } from './trackingMemory.js';
import type { WebhookHealth } from './webhookHealth.js';
import type { TrackingPolicy } from './trackingChanges.js';
import { WebhookRepair } from './webhookRepair.js';
import {
  ordersPushedSignal,
  sweepNowSignal,
  sweeperSettingsSignal,
  sweeperStatusQuery,
  webhookPulseSignal,
  type LastSweep,
  mergePushed,
  type PushedOrder,
  type PushLooks,
  type SweepCounts,
  type SweeperSettings,
} from './contract.js';
import { has } from '../durable/patches.js';

export interface TrackingSweeperInput {
  settings: SweeperSettings;
  memory?: SweepMemory;
  /** Set when a run continued as new in the middle of a sweep. */
  next?: { pageToken: string; counts: SweepCounts; startedAt: string };
  last?: LastSweep;
  /** The account's webhook health (webhook-health-2026-11). */
  webhooks?: WebhookHealth;
  /** Set when a run continued as new while it waited: the next sweep is due then (ISO). */
  sweepAt?: string;
  /** Pushed orders not looked at yet when the run continued as new (pushes-swept-2026-11). */
  pushed?: PushedOrder[];
}

export async function trackingSweeper(input: TrackingSweeperInput): Promise<void> {
  const run = new SweeperRun(input);
  run.handleRequests();
  // The first run takes up what the sweeps of the earlier schedule remembered.
  if (input.memory === undefined) {
    run.memory = (await previousMemory(run.ordersQueue)) ?? run.memory;
  }
  if (input.next === undefined) run.memory = { ...run.memory, sweep: run.memory.sweep + 1 };

  let resume = input.next;
  let due = input.sweepAt === undefined ? undefined : Date.parse(input.sweepAt);
  for (;;) {
    if (due === undefined) {
      await run.sweep(resume);
      resume = undefined;
    }
    due = await run.untilNextSweep(due);
    if (shouldContinueAsNew()) await continueAsNew<typeof trackingSweeper>(run.carried(due));
  }
}

type Resume = NonNullable<TrackingSweeperInput['next']>;

/** Pushed orders kept between looks at most; the sweeps find the others. */
const PUSHED_LIMIT = 5_000;

/** The sweeper's state between sweeps, written by its signals and its sweeps alone. */
class SweeperRun {
  readonly ordersQueue = workflowInfo().taskQueue;
  settings: SweeperSettings;
  memory: SweepMemory;
  private last: LastSweep | undefined;
  private nextSweepAt: string | undefined;
  /** Set by the signals, read by the wait between sweeps. */
  private readonly asked = { settings: false, sweep: false };
  private readonly repairs = has(Patch.WebhookHealth);
  private readonly webhooks: WebhookRepair;
  /** Orders pushes named since the last look, by workflow id (pushes-swept-2026-11). */
  private readonly pushed = new Map<string, PushedOrder>();
  private readonly looksAtPushes = has(Patch.PushesSwept);
  private pushLooks: PushLooks = { looks: 0, orders: 0, signalled: 0 };

  constructor(input: TrackingSweeperInput) {
    this.settings = input.settings;
    this.last = input.last;
    this.memory = input.memory ?? emptyMemory();
    this.webhooks = new WebhookRepair(input.webhooks);
    this.heardPushes(input.pushed ?? []);
  }

  /** Keeps the latest word per order, up to PUSHED_LIMIT orders (the sweeps cover the rest). */
  private heardPushes(orders: readonly PushedOrder[]): void {
    for (const order of orders) {
      const before = this.pushed.get(order.workflowId);
      if (before === undefined && this.pushed.size >= PUSHED_LIMIT) continue;
      this.pushed.set(order.workflowId, mergePushed(before, order));
    }
  }

  handleRequests(): void {
    setHandler(sweeperSettingsSignal, (changed) => {
      this.settings = changed;
      this.asked.settings = true;
    });
    setHandler(sweepNowSignal, () => {
      this.asked.sweep = true;
    });
    setHandler(webhookPulseSignal, (pulse) => {
      this.webhooks.heardPulse(pulse);
    });
    setHandler(ordersPushedSignal, (orders) => {
      this.heardPushes(orders);
    });
    followAccountTier();
    setHandler(sweeperStatusQuery, () => ({
      settings: this.settings,
      sweep: this.memory.sweep,
      ...(this.nextSweepAt !== undefined && { nextSweepAt: this.nextSweepAt }),
      ...(this.last !== undefined && { last: this.last }),
      ...(this.repairs && { webhooks: this.webhooks.view(this.settings, this.last) }),
      ...(this.looksAtPushes && { pushes: this.pushLooks }),
    }));
  }

  /** One sweep, page by page; continues as new in its middle when the history grows heavy. */
  private get policy(): TrackingPolicy {
    return {
      staleAfterMs: (this.settings.staleAfterSeconds ?? STALE_AFTER_SECONDS) * 1_000,
      missingAfterMs: (this.settings.missingAfterSeconds ?? MISSING_AFTER_SECONDS) * 1_000,
    };
  }

  async sweep(resume: Resume | undefined): Promise<void> {
    const { settings, policy } = this;
    const startedAt = resume?.startedAt ?? new Date().toISOString();
    const counts = resume?.counts ?? noCounts();
    const pageToken = resume?.pageToken;
    const end = await sweepPages({
      ordersQueue: this.ordersQueue,
      pageSize: settings.pageSize ?? PAGE_SIZE,
      policy,
      memory: this.memory,
      counts,
      ...(pageToken !== undefined && { pageToken }),
      stopBeforeNextPage: shouldContinueAsNew,
    });
    if (end.kind === 'stopped') {
      await continueAsNew<typeof trackingSweeper>({
        ...this.carried(),
        next: { pageToken: end.pageToken, counts, startedAt },
      });
    }
    this.last = {
      ...counts,
      sweep: this.memory.sweep,
      startedAt,
      endedAt: new Date().toISOString(),
    };
    log.info('tracking sweep done', { ...this.last });
    this.memory = afterSweep(this.memory, new Date().getTime(), policy.staleAfterMs);
    this.memory.sweep += 1;
    if (this.repairs) this.webhooks.heardSweep(counts, startedAt);
  }

  /** What the next run takes over; `due`: when its first sweep is due, if not at once. */
  carried(due?: number): TrackingSweeperInput {
    return {
      settings: this.settings,
      memory: bounded(this.memory),
      ...(this.last !== undefined && { last: this.last }),
      ...(this.repairs && { webhooks: this.webhooks.state }),
      ...(due !== undefined && { sweepAt: new Date(due).toISOString() }),
      ...(this.pushed.size > 0 && { pushed: [...this.pushed.values()] }),
    };
  }

  /**
   * Waits for the interval in force (shorter during a webhook gap); a settings change starts it
   * over, sweepNow or a gateway's news of failing pushes ends it. A repair due is made before the
   * next sweep, which is then the backfill. Returns when the next sweep is due, if the run must
   * continue as new before it (see waitLookingAtPushes); undefined: sweep now.
   */
  async untilNextSweep(due?: number): Promise<number | undefined> {
    if (this.looksAtPushes) {
      const stopped = await this.waitLookingAtPushes(due);
      if (stopped !== undefined) return stopped;
    } else if (this.repairs) {
      await this.waitForInterval();
    } else {
      await this.untilNextSweepV1();
    }
    if (this.repairs) {
      this.webhooks.trouble = false;
      await this.webhooks.repairIfDue(this.settings);
    }
    this.asked.sweep = false;
    this.nextSweepAt = undefined;
    return undefined;
  }

  private get woken(): boolean {
    return this.asked.settings || this.asked.sweep || this.webhooks.trouble;
  }

  private async waitForInterval(): Promise<void> {
    for (;;) {
      this.asked.settings = false;
      const wait = this.webhooks.waitMs(this.settings);
      this.nextSweepAt = new Date(new Date().getTime() + wait).toISOString();
      if (wait <= 0) break;
      const woken = await condition(() => this.woken, wait);
      if (!woken || this.asked.sweep || this.webhooks.trouble) break;
    }
  }

  /**
   * As waitForInterval (one timer per interval), and meanwhile asks the supplier about the orders
   * pushes name, as they come. Returns undefined when the sweep is due; when the history has grown
   * heavy after a look, the time it is due, for the next run to wait on.
   */
  private async waitLookingAtPushes(due: number | undefined): Promise<number | undefined> {
    let until = due;
    for (;;) {
      this.asked.settings = false;
      const now = new Date().getTime();
      until ??= now + this.webhooks.waitMs(this.settings);
      this.nextSweepAt = new Date(until).toISOString();
      if (until <= now) return undefined;
      const interval = { scope: new CancellationScope(), elapsed: false };
      void interval.scope
        .run(() => sleep(until! - now))
        .then(
          () => (interval.elapsed = true),
          () => undefined,
        );
      try {
        for (;;) {
          await condition(() => interval.elapsed || this.woken || this.pushed.size > 0);
          if (interval.elapsed || this.woken) break;
          await this.lookAtPushes();
          if (shouldContinueAsNew()) return until;
        }
      } finally {
        interval.scope.cancel();
      }
      // Only a settings change ends a wait early and starts the interval over.
      if (interval.elapsed || !this.woken || this.asked.sweep || this.webhooks.trouble) {
        return undefined;
      }
      until = undefined;
    }
  }

  /** The orders pushed since the last look, asked about and told now. */
  private async lookAtPushes(): Promise<void> {
    const orders = [...this.pushed.values()];
    this.pushed.clear();
    const counts = noCounts();
    await lookAtPushed(orders, this.memory, counts, this.policy);
    this.pushLooks = {
      looks: this.pushLooks.looks + 1,
      orders: this.pushLooks.orders + orders.length,
      signalled: this.pushLooks.signalled + counts.signalled,
      lastAt: new Date().toISOString(),
    };
    log.info('pushed orders looked at', {
      orders: orders.length,
      signalled: counts.signalled,
      failedCalls: counts.failedCalls,
    });
  }

  /** Before webhook health: waits for the interval; a settings change starts it over, sweepNow ends it. */
  private async untilNextSweepV1(): Promise<void> {
    for (;;) {
      this.asked.settings = false;
      const every = this.settings.everySeconds * 1_000;
      this.nextSweepAt = new Date(new Date().getTime() + every).toISOString();
      const woken = await condition(() => this.asked.settings || this.asked.sweep, every);
      if (!woken || this.asked.sweep) break;
    }
  }
}
