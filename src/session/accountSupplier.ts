/**
 * Another account's supplier client, as a worker process holds it for that account
 * (accounts/perAccount.ts): its own key and base URL, its token from its own session workflow.
 */
import type { Client } from '@temporalio/client';

import type { Account } from '../accounts/contract.js';
import { SupplierClient } from '../supplier/client.js';
import type { FleetView } from '../supplier/fleet.js';
import type { TaskQueues } from '../temporal/taskQueues.js';
import { SessionTokenSource } from './sessionTokens.js';

export interface AccountSupplierOptions {
  /** A client on the workers' connection, encoding payloads like them (tokens travel in them). */
  client: Client;
  queues: TaskQueues;
  /** The deployment's supplier API root, for an account that names none. */
  baseUrl: string;
  batchRatePerSecond: number;
  /** The fleet this process is one of (supplier/fleet.ts). */
  fleet?: FleetView;
}

/**
 * Another account's supplier client: its own API key and base URL, its token from its own session
 * workflow, and its own pacer in this process at its tier.
 */
export function accountSupplier(account: Account, o: AccountSupplierOptions): SupplierClient {
  return new SupplierClient({
    baseUrl: account.baseUrl ?? o.baseUrl,
    apiKey: account.apiKey,
    ratePerSecond: account.tier,
    batchRatePerSecond: o.batchRatePerSecond,
    ...(o.fleet !== undefined && { fleet: o.fleet }),
    tokens: new SessionTokenSource(o.client, o.queues, {
      account: { id: account.id, tier: account.tier },
    }),
  });
}
