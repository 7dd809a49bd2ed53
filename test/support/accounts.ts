/** Registry records of sandbox accounts, for tests (the directory itself: staticAccountDirectory). */
import type { Account } from '../../src/accounts/contract.js';
import type { TestAccount } from './sandbox.js';

/** The registry record of a sandbox account. */
export function accountOf(id: string, sandbox: TestAccount, tier: Account['tier']): Account {
  return { id, tier, baseUrl: sandbox.url, apiKey: sandbox.apiKey, intakeTokenSha256: [] };
}
