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
  const ordersQueue = workflowInfo().taskQueue;
  let settings = input.settings;
  /** Set by the signals, read by the wait between sweeps. */
  const asked = { settings: false, sweep: false };
  let last = input.last;
  let nextSweepAt: string | undefined;
  let memory: SweepMemory = input.memory ?? emptyMemory();
  const repairs = patched(Patch.WebhookHealth);
  const webhooks = new WebhookRepair(input.webhooks);

  setHandler(sweeperSettingsSignal, (changed) => {
    settings = changed;
    asked.settings = true;
  });
  setHandler(sweepNowSignal, () => {
    asked.sweep = true;
  });
  setHandler(webhookPulseSignal, (pulse) => {
    webhooks.heardPulse(pulse);
  });
  followAccountTier();
  setHandler(sweeperStatusQuery, () => ({
    settings,
    sweep: memory.sweep,
    ...(nextSweepAt !== undefined && { nextSweepAt }),
    ...(last !== undefined && { last }),
    ...(repairs && { webhooks: webhooks.view(settings, last) }),
  }));

  // The first run takes up what the sweeps of the earlier schedule remembered.
  if (input.memory === undefined) memory = (await previousMemory(ordersQueue)) ?? memory;
  if (input.next === undefined) memory = { ...memory, sweep: memory.sweep + 1 };

  let resume = input.next;
  for (;;) {
    const policy = {
      staleAfterMs: (settings.staleAfterSeconds ?? STALE_AFTER_SECONDS) * 1_000,
      missingAfterMs: (settings.missingAfterSeconds ?? MISSING_AFTER_SECONDS) * 1_000,
    };
    const startedAt = resume?.startedAt ?? new Date().toISOString();
    const counts = resume?.counts ?? noCounts();
    const pageToken = resume?.pageToken;
    resume = undefined;
    const end = await sweepPages({
      ordersQueue,
      pageSize: settings.pageSize ?? PAGE_SIZE,
      policy,
      memory,
      counts,
      ...(pageToken !== undefined && { pageToken }),
      stopBeforeNextPage: shouldContinueAsNew,
    });
    if (end.kind === 'stopped') {
      await continueAsNew<typeof trackingSweeper>({
        settings,
        memory: bounded(memory),
        next: { pageToken: end.pageToken, counts, startedAt },
        ...(last !== undefined && { last }),
        ...(repairs && { webhooks: webhooks.state }),
      });
    }
    last = { ...counts, sweep: memory.sweep, startedAt, endedAt: new Date().toISOString() };
    log.info('tracking sweep done', { ...last });
    memory = afterSweep(memory, new Date().getTime(), policy.staleAfterMs);
    memory.sweep += 1;

    if (repairs) {
      webhooks.heardSweep(counts, startedAt);
      await untilNextSweep();
    } else {
      await untilNextSweepV1();
    }
    asked.sweep = false;
    nextSweepAt = undefined;
    if (shouldContinueAsNew()) {
      await continueAsNew<typeof trackingSweeper>({
        settings,
        memory: bounded(memory),
        last,
        ...(repairs && { webhooks: webhooks.state }),
      });
    }
  }

  /**
   * Waits for the interval in force (shorter during a webhook gap); a settings change starts it
   * over, sweepNow or a gateway's news of failing pushes ends it. A repair due is made before the
   * next sweep, which is then the backfill.
   */
  async function untilNextSweep(): Promise<void> {
    for (;;) {
      asked.settings = false;
      const wait = webhooks.waitMs(settings);
      nextSweepAt = new Date(new Date().getTime() + wait).toISOString();
      if (wait <= 0) break;
      const woken = await condition(() => asked.settings || asked.sweep || webhooks.trouble, wait);
      if (!woken || asked.sweep || webhooks.trouble) break;
    }
    webhooks.trouble = false;
    await webhooks.repairIfDue(settings);
  }

  // Waits for the interval; a settings change starts it over, sweepNow ends it.
  async function untilNextSweepV1(): Promise<void> {
    for (;;) {
      asked.settings = false;
      nextSweepAt = new Date(new Date().getTime() + settings.everySeconds * 1_000).toISOString();
      const woken = await condition(
        () => asked.settings || asked.sweep,
        settings.everySeconds * 1_000,
      );
      if (!woken || asked.sweep) break;
    }
  }
}
