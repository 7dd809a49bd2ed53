/**
 * The tracking sweeper's side of webhook health (docs/webhook-health.md; the decisions are the
 * pure functions of webhookHealth.ts): it takes the gateways' pulses and each sweep's findings,
 * tells the sweeper how long to wait, and repairs — `webhook/set` again, paced — when pushes stop.
 * Its state travels through continue-as-new in the sweeper's input. Only runs on
 * `webhook-health-2026-11` repair; older runs only record the pulses.
 */
import { ActivityFailure, log, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { accountPriority } from '../durable/account.js';
import { SupplierPriority } from '../durable/supplierPriority.js';
import { queuesOf } from '../temporal/taskQueues.js';
import type {
  LastSweep,
  SweepCounts,
  SweeperSettings,
  WebhookHealthView,
  WebhookPulse,
} from './contract.js';
import type { WebhookRepairActivities } from './webhookActivities.js';
import {
  freshHealth,
  healthView,
  heardPulse,
  heardSweep,
  repairDue,
  repaired,
  repairSettings,
  waitMs,
  type WebhookHealth,
} from './webhookHealth.js';

const repairCalls = () =>
  proxyActivities<WebhookRepairActivities>({
    taskQueue: queuesOf(workflowInfo().taskQueue).supplier,
    priority: { priorityKey: SupplierPriority.Tracking, ...accountPriority({ weighted: true }) },
    scheduleToCloseTimeout: '10 minutes',
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '5 seconds', maximumInterval: '1 minute', maximumAttempts: 3 },
  });

/** The workflow clock (replayed deterministically). */
const now = (): number => new Date().getTime();

export class WebhookRepair {
  /** Set by a pulse that showed new failures: the sweeper sweeps at once. */
  trouble = false;

  constructor(private health: WebhookHealth = freshHealth()) {}

  get state(): WebhookHealth {
    return this.health;
  }

  heardPulse(pulse: WebhookPulse): void {
    const { health, trouble } = heardPulse(this.health, pulse, now());
    this.health = health;
    if (trouble) this.trouble = true;
  }

  /** News the sweep told orders (flags are not news a push would have brought). */
  heardSweep(counts: SweepCounts, startedAt: string): void {
    const changes = Math.max(0, counts.signalled - counts.flagged);
    this.health = heardSweep(this.health, changes, Date.parse(startedAt));
  }

  waitMs(settings: SweeperSettings): number {
    return waitMs(this.health, repairSettings(settings), settings.everySeconds, now());
  }

  /** During a gap, when due: registers the webhooks again (with a callback URL). */
  async repairIfDue(settings: SweeperSettings): Promise<boolean> {
    const s = repairSettings(settings);
    if (!repairDue(this.health, s, now())) return false;
    this.trouble = false;
    if (s.callbackUrl === undefined) {
      this.health = repaired(this.health, now());
      log.warn('webhook gap: sweeping at once (no callback URL to register)', this.logged());
      return true;
    }
    let outcome: { ok: boolean; error?: string } = { ok: true };
    try {
      await repairCalls().registerWebhooks({ callbackUrl: s.callbackUrl });
    } catch (err) {
      if (!(err instanceof ActivityFailure)) throw err;
      outcome = { ok: false, error: err.cause?.message ?? err.message };
    }
    this.health = repaired(this.health, now(), outcome);
    log.warn('webhook gap: registered the webhooks again, sweeping at once', {
      ...this.logged(),
      ...outcome,
    });
    return true;
  }

  view(settings: SweeperSettings, last: LastSweep | undefined): WebhookHealthView {
    const lastSweepMs =
      last === undefined ? 0 : Date.parse(last.endedAt) - Date.parse(last.startedAt);
    return healthView(
      this.health,
      repairSettings(settings),
      settings.everySeconds,
      lastSweepMs,
      now(),
    );
  }

  private logged() {
    const { pollOnlySince, failingSince, tries, polledChanges } = this.health;
    return { pollOnlySince, failingSince, tries, polledChanges };
  }
}
