/**
 * Keeps each account's singletons running (src/singletons.ts): ensures them for every account
 * now, for every account the directory adds or changes, and looks every `everyMs` whether each
 * account's checkout coordinator and tracking sweeper still run. One an operator terminated (or
 * that ended) is started again within that period, so orders waiting for shipment news or for a
 * batch never wait on a singleton that is gone. A look is a describe, which Temporal does not
 * bill; only a missing singleton costs a start. Every worker of a fleet supervises: the ensure is
 * idempotent, so two that find the same gap start one run.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Account, AccountDirectory } from './accounts/contract.js';
import {
  ensureAccountSingletons,
  type EnsuredAccount,
  type SingletonOptions,
} from './singletons.js';
import type { Logger } from './telemetry/log.js';

/** How often a worker looks whether each account's singletons still run. */
export const SUPERVISE_SINGLETONS_EVERY_MS = 60_000;

export interface SingletonSupervisor {
  /** Ensures the singletons of the accounts in `now` that are new or changed tier. */
  follow: (now: readonly Account[]) => void;
  /** Stops looking, once an ensure under way has finished. */
  stop: () => Promise<void>;
}

export async function superviseSingletons(
  client: Client,
  accounts: AccountDirectory,
  singletons: SingletonOptions,
  log: Logger,
  everyMs = SUPERVISE_SINGLETONS_EVERY_MS,
): Promise<SingletonSupervisor> {
  const tiers = new Map<string, number>();
  const ensured = new Map<string, EnsuredAccount>();
  let chain = Promise.resolve();

  const ensure = async (changed: readonly Account[], why: string): Promise<void> => {
    const results = await Promise.allSettled(
      changed.map((a) => ensureAccountSingletons(client, a, singletons)),
    );
    results.forEach((r, i) => {
      const account = changed[i]!;
      if (r.status === 'fulfilled') {
        ensured.set(account.id, r.value);
        log.info({ ...r.value, why }, 'account singletons ensured');
      } else {
        // Forgotten, so the next change or look tries again.
        tiers.delete(account.id);
        ensured.delete(account.id);
        log.error(
          { account: account.id, err: r.reason as unknown },
          'account singletons not ensured',
        );
      }
    });
  };

  const follow = (now: readonly Account[]): void => {
    const changed = now.filter((a) => tiers.get(a.id) !== a.tier);
    // A removed account's singletons drain on their own; forgotten, so a re-added one is ensured.
    for (const id of [...tiers.keys()]) {
      if (!now.some((a) => a.id === id)) {
        tiers.delete(id);
        ensured.delete(id);
      }
    }
    for (const a of now) tiers.set(a.id, a.tier);
    if (changed.length === 0) return;
    chain = chain.then(() => ensure(changed, 'directory'));
  };

  const look = (): void => {
    chain = chain
      .then(async () => {
        const gone: Account[] = [];
        for (const a of accounts.list()) {
          const e = ensured.get(a.id);
          if (e === undefined || !(await allRunning(client, [e.coordinator, e.sweeper])))
            gone.push(a);
        }
        if (gone.length > 0) await ensure(gone, 'not running');
      })
      .catch((err: unknown) => {
        log.warn({ err }, 'account singletons not looked at');
      });
  };

  const now = accounts.list();
  for (const a of now) tiers.set(a.id, a.tier);
  await ensure(now, 'start');
  const timer = setInterval(look, everyMs);
  timer.unref();
  return {
    follow,
    stop: async () => {
      clearInterval(timer);
      await chain;
    },
  };
}

async function allRunning(client: Client, ids: (string | undefined)[]): Promise<boolean> {
  for (const id of ids) {
    if (id === undefined) continue;
    try {
      const { status } = await client.workflow.getHandle(id).describe();
      if (status.name !== 'RUNNING') return false;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) return false;
      throw err;
    }
  }
  return true;
}
