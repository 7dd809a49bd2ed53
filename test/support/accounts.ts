/** An account directory a test changes as it goes (what the registry's watcher does on a file change). */
import type { Account, AccountDirectory } from '../../src/accounts/contract.js';
import type { TestAccount } from './sandbox.js';

export interface ChangingDirectory extends AccountDirectory {
  put(account: Account): void;
  remove(id: string): void;
}

export function changingDirectory(initial: readonly Account[] = []): ChangingDirectory {
  const accounts = new Map(initial.map((a) => [a.id, a]));
  const listeners = new Set<(accounts: readonly Account[]) => void>();
  const changed = (): void => {
    const now = [...accounts.values()];
    for (const listener of listeners) listener(now);
  };
  return {
    get: (id) => accounts.get(id),
    list: () => [...accounts.values()],
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    put(account) {
      accounts.set(account.id, account);
      changed();
    },
    remove(id) {
      accounts.delete(id);
      changed();
    },
  };
}

/** The registry record of a sandbox account. */
export function accountOf(id: string, sandbox: TestAccount, tier: Account['tier']): Account {
  return { id, tier, baseUrl: sandbox.url, apiKey: sandbox.apiKey, intakeTokenSha256: [] };
}
