/**
 * The bench's accounts in the registry file (ACCOUNTS_FILE) that every worker of the fleet reads.
 *
 * TODO-for-integration: a stand-in. It writes the document of wip/registry's
 * src/accounts/registryFile.ts (`{version: 1, revision, accounts: [{id, tier, apiKey, openId,
 * intakeTokenSha256}]}`, secrets in clear, which that reader accepts with or without
 * DROPFLOW_ENCRYPTION_KEY). Once the registry module is merged, write through its
 * `updateRegistry` (and seal the secrets with its SecretBox) instead, and drop this shape.
 */
import { writeFile } from 'node:fs/promises';

import type { RateTier } from '../../../src/accounts/contract.js';

export interface RegistryEntry {
  id: string;
  tier: RateTier;
  apiKey: string;
  openId: string;
}

const REGISTRY_VERSION = 1;

export async function writeBenchRegistry(
  path: string,
  accounts: readonly RegistryEntry[],
): Promise<void> {
  const document = {
    version: REGISTRY_VERSION,
    revision: 1,
    accounts: accounts.map((a) => ({
      id: a.id,
      tier: a.tier,
      apiKey: a.apiKey,
      openId: a.openId,
      intakeTokenSha256: [],
    })),
  };
  await writeFile(path, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
}
