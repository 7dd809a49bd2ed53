/**
 * What a worker process holds for each account it serves (its supplier client, with its own key,
 * token session and in-process pacer, and the activities built on it): made when the account's
 * first task comes, made again when the directory changes the account, dropped when the account
 * is removed. The default account's is the one the process was configured with, unchanged.
 */
import { createHash } from 'node:crypto';

import { activityAccount, unknownAccount } from './activityAccount.js';
import { DEFAULT_ACCOUNT, type Account, type AccountDirectory, type RateTier } from './contract.js';

export interface Held<T> {
  value: T;
  /** Releases what `value` holds (its HTTP connections); called once no task may still use it. */
  close(): Promise<void>;
  /** Follows a new tier of the account; without it, a tier change makes the value again. */
  retier?(tier: RateTier): void;
}

/**
 * An account's value is released this long after the directory changed or removed the account:
 * longer than any activity that may still use it runs (startToClose is at most 2 minutes).
 */
const RELEASE_AFTER_MS = 3 * 60_000;

export class PerAccount<T> {
  private readonly made = new Map<string, Made<T>>();
  private readonly releasing = new Map<NodeJS.Timeout, Held<T>>();
  private closed = false;

  constructor(
    private readonly directory: AccountDirectory,
    private readonly defaultValue: T,
    private readonly make: (account: Account) => Held<T>,
  ) {}

  /** The running activity's account's value; an unknown account fails it (`UnknownAccount`). */
  current(): T {
    return this.of(activityAccount());
  }

  of(id: string): T {
    if (id === DEFAULT_ACCOUNT) return this.defaultValue;
    const account = this.directory.get(id);
    if (account === undefined || this.closed) throw unknownAccount(id);
    const had = this.made.get(id);
    if (had !== undefined && this.keeps(had, account)) return had.held.value;
    if (had !== undefined) this.release(had.held);
    const held = this.make(account);
    this.made.set(id, { fingerprint: fingerprintOf(account), tier: account.tier, held });
    return held.value;
  }

  /** Releases every account's value now (the workers have stopped). */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.made.values()].map(({ held }) => held);
    for (const [timer, held] of this.releasing) {
      clearTimeout(timer);
      all.push(held);
    }
    this.releasing.clear();
    this.made.clear();
    await Promise.all(all.map((held) => held.close().catch(() => undefined)));
  }

  /**
   * The directory changed: drops the values of accounts it changed or removed (re-paces one whose
   * tier alone changed). Told by the worker's one subscription to the directory (src/worker.ts).
   */
  follow(): void {
    for (const [id, had] of this.made) {
      const account = this.directory.get(id);
      if (account !== undefined && this.keeps(had, account)) continue;
      this.made.delete(id);
      this.release(had.held);
    }
  }

  /** Whether `had` still serves `account`: the same record, or one with only its tier changed. */
  private keeps(had: Made<T>, account: Account): boolean {
    if (fingerprintOf(account) !== had.fingerprint) return false;
    if (had.tier === account.tier) return true;
    if (had.held.retier === undefined) return false;
    had.held.retier(account.tier);
    had.tier = account.tier;
    return true;
  }

  private release(held: Held<T>): void {
    const timer = setTimeout(() => {
      this.releasing.delete(timer);
      void held.close().catch(() => undefined);
    }, RELEASE_AFTER_MS);
    timer.unref();
    this.releasing.set(timer, held);
  }
}

interface Made<T> {
  /** Of the record but its tier. */
  fingerprint: string;
  tier: RateTier;
  held: Held<T>;
}

/**
 * Whether the record, its tier aside, changed (a hash: the secrets it covers are not kept in
 * another form).
 */
function fingerprintOf(account: Account): string {
  const { tier: _tier, ...rest } = account;
  return createHash('sha256').update(JSON.stringify(rest)).digest('hex');
}
