/**
 * An in-memory AccountDirectory: for tests and for callers that hold their accounts themselves.
 * `set` adds or replaces an account and `remove` drops one; subscribers hear of each change.
 */
import type { Account, AccountDirectory } from './contract.js';

export interface StaticAccountDirectory extends AccountDirectory {
  set(account: Account): void;
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
      return () => {
        listeners.delete(listener);
      };
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
