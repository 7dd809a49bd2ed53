/**
 * An AccountDirectory held in memory: what a process with no registry file knows (the default
 * account of its environment), and what tests use to add, change and remove accounts.
 */
import type { Account, AccountDirectory } from './contract.js';

export interface StaticAccountDirectory extends AccountDirectory {
  /** Adds the account, or replaces the one with its id; tells the subscribers. */
  set(account: Account): void;
  /** Removes the account, if present; tells the subscribers. */
  remove(id: string): void;
}

export function staticAccountDirectory(accounts: readonly Account[] = []): StaticAccountDirectory {
  const byId = new Map(accounts.map((a) => [a.id, a]));
  const listeners = new Set<(accounts: readonly Account[]) => void>();
  const changed = () => {
    const now = [...byId.values()];
    for (const listener of listeners) listener(now);
  };
  return {
    get: (id) => byId.get(id),
    list: () => [...byId.values()],
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(account) {
      byId.set(account.id, account);
      changed();
    },
    remove(id) {
      if (byId.delete(id)) changed();
    },
  };
}
