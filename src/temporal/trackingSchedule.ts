/**
 * The tracking sweeper's Temporal Schedule: one per supplier account, starting `trackingSweep` on
 * the account's orders queue every N seconds. A sweep still running when the next one is due makes
 * that one skip, so sweeps of an account never overlap (each sweep takes up what the previous one
 * remembered from its result).
 *
 * `ensureTrackingSchedule` is idempotent: every worker start may call it. It creates the schedule,
 * or brings an existing one to the given interval and queue while keeping its paused state and
 * note (an operator's pause survives restarts).
 */
import {
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  type Client,
  type ScheduleOptionsStartWorkflowAction,
  type ScheduleSpec,
} from '@temporalio/client';
import type { trackingSweep, TrackingSweepInput } from '../workflows/trackingSweep.js';
import type { TaskQueues } from './taskQueues.js';

export const TRACKING_SWEEP_WORKFLOW = 'trackingSweep';

export interface TrackingScheduleOptions {
  queues: TaskQueues;
  /** Seconds between sweeps (whole seconds, at least 1). */
  everySeconds: number;
  /** Names the account in the schedule id; `default` when left out. No personal data. */
  accountLabel?: string;
  /**
   * Longest one run of a sweep (one page of orders) may take before it is stopped (default 15
   * minutes); a stuck sweep would otherwise skip every later one.
   */
  sweepTimeoutSeconds?: number;
  /** Hours an unchanged supplier status may last before the order is flagged (default 336). */
  staleAfterHours?: number;
  /** Minutes the supplier may not list an order before it is flagged (default 60). */
  missingAfterMinutes?: number;
  /** Orders per page and per run of a sweep (default 1000). */
  pageSize?: number;
}

export interface TrackingSchedule {
  scheduleId: string;
  /** False when an existing schedule was updated. */
  created: boolean;
}

export function trackingScheduleId(accountLabel?: string): string {
  return `tracking-sweep:${accountLabel === undefined || accountLabel === '' ? 'default' : accountLabel}`;
}

export async function ensureTrackingSchedule(
  client: Client,
  opts: TrackingScheduleOptions,
): Promise<TrackingSchedule> {
  if (!Number.isInteger(opts.everySeconds) || opts.everySeconds < 1) {
    throw new RangeError(
      `everySeconds: must be a whole number of at least 1, not ${opts.everySeconds}`,
    );
  }
  const scheduleId = trackingScheduleId(opts.accountLabel);
  const spec: ScheduleSpec = { intervals: [{ every: `${opts.everySeconds}s` }] };
  const sweep: TrackingSweepInput = {
    ...(opts.staleAfterHours !== undefined && {
      staleAfterSeconds: Math.round(opts.staleAfterHours * 3_600),
    }),
    ...(opts.missingAfterMinutes !== undefined && {
      missingAfterSeconds: Math.round(opts.missingAfterMinutes * 60),
    }),
    ...(opts.pageSize !== undefined && { pageSize: opts.pageSize }),
  };
  const action: ScheduleOptionsStartWorkflowAction<typeof trackingSweep> = {
    type: 'startWorkflow',
    workflowType: TRACKING_SWEEP_WORKFLOW,
    // The schedule appends the scheduled time, so each sweep has its own id.
    workflowId: scheduleId,
    taskQueue: opts.queues.orders,
    args: [sweep],
    // Per run: a sweep continues as new page by page, and may take as many pages as there are.
    workflowRunTimeout: `${opts.sweepTimeoutSeconds ?? 15 * 60}s`,
  };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP } as const;

  try {
    await client.schedule.create({ scheduleId, spec, action, policies });
    return { scheduleId, created: true };
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
  }
  await client.schedule.getHandle(scheduleId).update((previous) => ({
    spec,
    action,
    policies,
    state: {
      paused: previous.state.paused,
      ...(previous.state.note !== undefined && { note: previous.state.note }),
    },
  }));
  return { scheduleId, created: false };
}
