/**
 * The account's tracking sweeper (tracking/trackingSweeper.ts), ensured by every worker at start:
 * started if it does not run, otherwise given the current settings, in one signal-with-start, so
 * any number of workers may call it at once. An earlier release started one sweep per interval
 * from a Temporal Schedule of the same name; that schedule is deleted here, and a sweep it
 * started finishes on its own.
 */
import { ScheduleNotFoundError, type Client } from '@temporalio/client';
import {
  sweeperSettingsSignal,
  TRACKING_SWEEPER_WORKFLOW,
  trackingSweeperId,
  type SweeperSettings,
  type SweeperStartInput,
  type WebhookRepairSettings,
  DEFAULT_WEBHOOK_REPAIR,
} from './contract.js';
import { queuePrefix, type TaskQueues } from '../temporal/taskQueues.js';
import { accountScope, DEFAULT_ACCOUNT } from '../accounts/contract.js';
import {
  accountStartOptions,
  WorkflowPriority,
  type AccountRef,
} from '../accounts/accountStart.js';

export interface TrackingSweeperOptions {
  queues: TaskQueues;
  /** Seconds between sweeps (whole seconds, at least 1). */
  everySeconds: number;
  /**
   * Names the account in the workflow id; `default` when left out. No personal data. Ignored
   * with `account`, whose id names it (`accountScope` of the queue set).
   */
  accountLabel?: string;
  /** The supplier account the sweeper sweeps the orders of (SupplierAccount, tier memo). */
  account?: AccountRef;
  /** Hours an unchanged supplier status may last before the order is flagged (default 336). */
  staleAfterHours?: number;
  /** Minutes the supplier may not list an order before it is flagged (default 60). */
  missingAfterMinutes?: number;
  /** Orders per visibility page (default 1000). */
  pageSize?: number;
  /** Webhook health and repair (docs/webhook-health.md); defaults: DEFAULT_WEBHOOK_REPAIR, no callback. */
  webhooks?: WebhookRepairOptions;
}

export interface WebhookRepairOptions {
  /** The account's public webhook callback, registered again when pushes stop. */
  callbackUrl?: (account: string) => string;
  gapSeconds?: number;
  registerEverySeconds?: number;
  repairEverySeconds?: number;
}

export interface EnsuredSweeper {
  workflowId: string;
  /** True when the schedule of an earlier release was found and deleted. */
  replacedSchedule: boolean;
}

function repairOf(opts: TrackingSweeperOptions): WebhookRepairSettings {
  const w = opts.webhooks ?? {};
  return {
    gapSeconds: w.gapSeconds ?? DEFAULT_WEBHOOK_REPAIR.gapSeconds,
    registerEverySeconds: w.registerEverySeconds ?? DEFAULT_WEBHOOK_REPAIR.registerEverySeconds,
    repairEverySeconds: w.repairEverySeconds ?? DEFAULT_WEBHOOK_REPAIR.repairEverySeconds,
    ...(w.callbackUrl !== undefined && {
      callbackUrl: w.callbackUrl(opts.account?.id ?? DEFAULT_ACCOUNT),
    }),
  };
}

export function sweeperSettings(opts: TrackingSweeperOptions): SweeperSettings {
  if (!Number.isInteger(opts.everySeconds) || opts.everySeconds < 1) {
    throw new RangeError(
      `everySeconds: must be a whole number of at least 1, not ${opts.everySeconds}`,
    );
  }
  return {
    everySeconds: opts.everySeconds,
    ...(opts.staleAfterHours !== undefined && {
      staleAfterSeconds: Math.round(opts.staleAfterHours * 3_600),
    }),
    ...(opts.missingAfterMinutes !== undefined && {
      missingAfterSeconds: Math.round(opts.missingAfterMinutes * 60),
    }),
    ...(opts.pageSize !== undefined && { pageSize: opts.pageSize }),
    webhooks: repairOf(opts),
  };
}

export async function ensureTrackingSweeper(
  client: Client,
  opts: TrackingSweeperOptions,
): Promise<EnsuredSweeper> {
  const settings = sweeperSettings(opts);
  const label =
    opts.account === undefined
      ? opts.accountLabel
      : accountScope(queuePrefix(opts.queues), opts.account.id);
  const workflowId = trackingSweeperId(label);
  await client.workflow.signalWithStart<
    (input: SweeperStartInput) => Promise<void>,
    [SweeperSettings]
  >(TRACKING_SWEEPER_WORKFLOW, {
    ...accountStartOptions(opts.account, WorkflowPriority.Singleton),
    workflowId,
    taskQueue: opts.queues.orders,
    args: [{ settings }],
    signal: sweeperSettingsSignal,
    signalArgs: [settings],
    staticSummary: `tracking sweeper of ${label || 'the account'}: asks the supplier about every paid order every ${settings.everySeconds} s`,
  });
  let replacedSchedule = true;
  try {
    await client.schedule.getHandle(workflowId).delete();
  } catch (err) {
    if (!(err instanceof ScheduleNotFoundError)) throw err;
    replacedSchedule = false;
  }
  return { workflowId, replacedSchedule };
}
