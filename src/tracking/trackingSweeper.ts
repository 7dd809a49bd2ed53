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
  condition,
  continueAsNew,
  log,
  patched,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { Patch } from '../durable/versions.js';
import { shouldContinueAsNew } from '../durable/longRunning.js';
import { followAccountTier } from '../durable/account.js';
import {
  MISSING_AFTER_SECONDS,
  noCounts,
  PAGE_SIZE,
  previousMemory,
  STALE_AFTER_SECONDS,
} from './sweepPage.js';
import { sweepPages } from './sweepPages.js';
import { afterSweep, bounded, emptyMemory, type SweepMemory } from './trackingMemory.js';
import type { WebhookHealth } from './webhookHealth.js';
import { WebhookRepair } from './webhookRepair.js';
import {
  sweepNowSignal,
  sweeperSettingsSignal,
  sweeperStatusQuery,
  webhookPulseSignal,
  type LastSweep,
  type SweepCounts,
  type SweeperSettings,
} from './contract.js';

export interface TrackingSweeperInput {
  settings: SweeperSettings;
  memory?: SweepMemory;
  /** Set when a run continued as new in the middle of a sweep. */
  next?: { pageToken: string; counts: SweepCounts; startedAt: string };
  last?: LastSweep;
  /** The account's webhook health (webhook-health-2026-11). */
  webhooks?: WebhookHealth;
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
  for (;;) {
    await run.sweep(resume);
    resume = undefined;
    await run.untilNextSweep();
    if (shouldContinueAsNew()) await continueAsNew<typeof trackingSweeper>(run.carried());
  }
}

type Resume = NonNullable<TrackingSweeperInput['next']>;

/** The sweeper's state between sweeps, written by its signals and its sweeps alone. */
class SweeperRun {
  readonly ordersQueue = workflowInfo().taskQueue;
  settings: SweeperSettings;
  memory: SweepMemory;
  private last: LastSweep | undefined;
  private nextSweepAt: string | undefined;
  /** Set by the signals, read by the wait between sweeps. */
  private readonly asked = { settings: false, sweep: false };
  private readonly repairs = patched(Patch.WebhookHealth);
  private readonly webhooks: WebhookRepair;

  constructor(input: TrackingSweeperInput) {
    this.settings = input.settings;
    this.last = input.last;
    this.memory = input.memory ?? emptyMemory();
    this.webhooks = new WebhookRepair(input.webhooks);
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
    followAccountTier();
    setHandler(sweeperStatusQuery, () => ({
      settings: this.settings,
      sweep: this.memory.sweep,
      ...(this.nextSweepAt !== undefined && { nextSweepAt: this.nextSweepAt }),
      ...(this.last !== undefined && { last: this.last }),
      ...(this.repairs && { webhooks: this.webhooks.view(this.settings, this.last) }),
    }));
  }

  /** One sweep, page by page; continues as new in its middle when the history grows heavy. */
  async sweep(resume: Resume | undefined): Promise<void> {
    const { settings } = this;
    const policy = {
      staleAfterMs: (settings.staleAfterSeconds ?? STALE_AFTER_SECONDS) * 1_000,
      missingAfterMs: (settings.missingAfterSeconds ?? MISSING_AFTER_SECONDS) * 1_000,
    };
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

  /** What the next run takes over. */
  carried(): TrackingSweeperInput {
    return {
      settings: this.settings,
      memory: bounded(this.memory),
      ...(this.last !== undefined && { last: this.last }),
      ...(this.repairs && { webhooks: this.webhooks.state }),
    };
  }

  /**
   * Waits for the interval in force (shorter during a webhook gap); a settings change starts it
   * over, sweepNow or a gateway's news of failing pushes ends it. A repair due is made before the
   * next sweep, which is then the backfill.
   */
  async untilNextSweep(): Promise<void> {
    if (this.repairs) {
      for (;;) {
        this.asked.settings = false;
        const wait = this.webhooks.waitMs(this.settings);
        this.nextSweepAt = new Date(new Date().getTime() + wait).toISOString();
        if (wait <= 0) break;
        const woken = await condition(
          () => this.asked.settings || this.asked.sweep || this.webhooks.trouble,
          wait,
        );
        if (!woken || this.asked.sweep || this.webhooks.trouble) break;
      }
      this.webhooks.trouble = false;
      await this.webhooks.repairIfDue(this.settings);
    } else {
      await this.untilNextSweepV1();
    }
    this.asked.sweep = false;
    this.nextSweepAt = undefined;
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
