/**
 * The tracking sweeper's contract (docs/architecture.md §15): its workflow types and id, its
 * settings, signals and status query, for the workers that ensure it, the replay check and tests.
 * Sandbox-safe: types and definers only.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';

/** The account's one long-running sweeper (trackingSweeper.ts). */
export const TRACKING_SWEEPER_WORKFLOW = 'trackingSweeper';
/** A sweep started by the schedule of an earlier release (trackingSweep.ts). */
export const TRACKING_SWEEP_WORKFLOW = 'trackingSweep';

/** `tracking-sweep:<account>`: the sweeper's workflow id (and the former schedule's id). */
export function trackingSweeperId(accountLabel?: string): string {
  return `tracking-sweep:${accountLabel === undefined || accountLabel === '' ? 'default' : accountLabel}`;
}

export interface SweeperSettings {
  /** Seconds between the end of one sweep and the start of the next. */
  everySeconds: number;
  /** A supplier status unchanged this long flags the order (default 14 days). */
  staleAfterSeconds?: number;
  /** An order the supplier has not listed this long (over 2 sweeps at least) is flagged. */
  missingAfterSeconds?: number;
  /** Orders per visibility page (default 1000). */
  pageSize?: number;
}

/** What a starter gives the sweeper; a run carries the rest itself (trackingSweeper.ts). */
export interface SweeperStartInput {
  settings: SweeperSettings;
}

export interface SweepCounts {
  /** Workflow runs the sweep took (one per page). */
  runs: number;
  /** Tracked orders found in visibility. */
  orders: number;
  /** Supplier calls: detailCalls + proofCalls. */
  batchCalls: number;
  /** getOrderDetailBatch calls, including those asking again by order number. */
  detailCalls: number;
  proofCalls: number;
  /**
   * Calls that failed after their retries; their orders wait for the next sweep (a failed listing
   * ends the sweep there).
   */
  failedCalls: number;
  /** Orders the supplier did not list, asked by every id they are known by. */
  missing: number;
  /** Orders told something new (news or a flag). */
  signalled: number;
  /** Flags sent: the supplier stopped listing the order, or its status did not move. */
  flagged: number;
  /** Orders whose news was sent by an earlier sweep and still applies: not sent again. */
  toldBefore: number;
  /** Orders that had closed by the time of their signal. */
  closed: number;
  /** Orders whose signal failed after its retries; the next sweep tells them. */
  unsignalled: number;
}

export interface LastSweep extends SweepCounts {
  sweep: number;
  startedAt: string;
  endedAt: string;
}

export interface SweeperStatus {
  settings: SweeperSettings;
  /** The sweep under way, or the next one. */
  sweep: number;
  /** When the next sweep starts, while the sweeper waits. */
  nextSweepAt?: string;
  last?: LastSweep;
}

export const sweeperSettingsSignal = defineSignal<[SweeperSettings]>('sweeperSettings');
export const sweepNowSignal = defineSignal('sweepNow');
export const sweeperStatusQuery = defineQuery<SweeperStatus>('sweeperStatus');
