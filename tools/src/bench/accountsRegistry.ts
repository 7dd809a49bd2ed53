/**
 * The bench's accounts in the registry file (ACCOUNTS_FILE) that every worker of the fleet reads,
 * written as `dropflow account add` writes them (src/accounts/registryEdits.ts): under the file's
 * lock, secrets sealed when the workers' environment has DROPFLOW_ENCRYPTION_KEY.
 */
import { addAccount } from 'dropflow/accounts';
import type { RateTier } from 'dropflow/contracts/accounts';
import { loadConfig } from 'dropflow/config';

export interface RegistryEntry {
  id: string;
  tier: RateTier;
  apiKey: string;
  openId: string;
}

/** Adds the accounts to the registry of the workers' environment `env` (its ACCOUNTS_FILE). */
export async function writeBenchRegistry(
  env: NodeJS.ProcessEnv,
  accounts: readonly RegistryEntry[],
): Promise<void> {
  const config = loadConfig(env);
  for (const a of accounts) {
    await addAccount(config, a.id, { tier: a.tier, apiKey: a.apiKey, openId: a.openId });
  }
}
