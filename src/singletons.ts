/**
 * Every worker ensures the per-account singletons of each account its directory lists: the
 * checkout coordinator (with the deployment's checkout settings), the tracking sweeper and the
 * token session, each started with the account (SupplierAccount, tier memo) if it does not run.
 * Idempotent (signal-with-start, or start with USE_EXISTING), so a fleet of processes may all do
 * it at once, at start and on every change of the directory. A running coordinator or sweeper
 * whose memo holds another tier than the directory's is told (`accountTier`): it follows without
 * a restart. A removed account's singletons are left alone: they drain its orders.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';

import {
  ACCOUNT_TIER_SIGNAL,
  SUPPLIER_TIER_MEMO,
  type AccountSettings,
} from './accounts/contract.js';
import { accountCheckoutId, configureCheckout } from './checkout/startActivities.js';
import type { CheckoutSettings } from './terms/checkoutSettings.js';
import type { SupplierSessionInput } from './session/contract.js';
import { ensureSession } from './session/sessionTokens.js';
import type { TaskQueues } from './temporal/taskQueues.js';
import { ensureTrackingSweeper, type TrackingSweeperOptions } from './tracking/sweeperStart.js';

export interface SingletonOptions {
  queues: TaskQueues;
  checkout: CheckoutSettings;
  /** The sweeper's settings; without them no sweeper is ensured (`--no-tracking-sweeper`). */
  trackingSweeper?: Omit<TrackingSweeperOptions, 'queues' | 'accountLabel' | 'account'>;
  /** The input of a session this starts; without it no session is ensured (started on use). */
  session?: SupplierSessionInput;
  /** The processes sharing each account's slots (SUPPLIER_FLEET_SHARE's n; none: 1). */
  fleetSize?: number;
}

/** What was ensured for one account (for the worker's log). */
export interface EnsuredAccount {
  account: string;
  coordinator: string;
  sweeper?: string;
  /** The singletons told of a new tier. */
  toldTier: string[];
}

export async function ensureAccountSingletons(
  client: Client,
  account: Pick<AccountSettings, 'id' | 'tier'>,
  opts: SingletonOptions,
): Promise<EnsuredAccount> {
  const { queues } = opts;
  await configureCheckout(client, queues, opts.checkout, account, opts.fleetSize);
  const coordinator = accountCheckoutId(queues, account.id);
  const ensured: EnsuredAccount = { account: account.id, coordinator, toldTier: [] };
  if (opts.trackingSweeper !== undefined) {
    const sweeper = await ensureTrackingSweeper(client, {
      ...opts.trackingSweeper,
      queues,
      account,
    });
    ensured.sweeper = sweeper.workflowId;
  }
  if (opts.session !== undefined) await ensureSession(client, queues, account, opts.session);
  for (const id of [coordinator, ensured.sweeper]) {
    if (id !== undefined && (await followTier(client, id, account.tier))) ensured.toldTier.push(id);
  }
  return ensured;
}

/** Tells the running singleton `id` the account's tier if its memo holds another; true if told. */
async function followTier(client: Client, id: string, tier: number): Promise<boolean> {
  const handle = client.workflow.getHandle(id);
  try {
    const { memo, status } = await handle.describe();
    if (status.name !== 'RUNNING' || memo?.[SUPPLIER_TIER_MEMO] === tier) return false;
    await handle.signal(ACCOUNT_TIER_SIGNAL, tier);
    return true;
  } catch (err) {
    // Ended between the start and now: whoever starts it next gives it the tier.
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}
