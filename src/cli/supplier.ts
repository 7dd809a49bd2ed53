/**
 * A supplier client for commands that already talk to Temporal: it takes the account's access
 * token from the account's session workflow, as workers and gateways do, so it costs no token
 * call of its own (the supplier answers getAccessToken about once per 5 minutes per account). A
 * worker of the account must be running. The supplier is the account's base URL (the registry's),
 * else SUPPLIER_BASE_URL, else the one of the running `dropflow dev` whose Temporal the command
 * uses, else the local sandbox.
 */
import { resolve } from 'node:path';

import { setTimeout as sleep } from 'node:timers/promises';

import { DEFAULT_ACCOUNT } from '../accounts/contract.js';
import type { Config } from '../config/environment.js';
import { SupplierClient } from '../supplier/client.js';
import { SupplierCode, SupplierError } from '../supplier/errors.js';
import { SessionTokenSource } from '../session/sessionTokens.js';
import { readDevState } from './devState.js';
import type { NamedAccount } from './orderAccount.js';
import type { TemporalClient } from './temporal.js';

export function sessionSupplier(
  temporal: TemporalClient,
  config: Config,
  account: NamedAccount = { id: DEFAULT_ACCOUNT },
): SupplierClient {
  const dev =
    temporal.target.source === 'dev' ? readDevState(resolve(config.DROPFLOW_DATA_DIR)) : undefined;
  return new SupplierClient({
    baseUrl:
      account.baseUrl ??
      config.SUPPLIER_BASE_URL ??
      dev?.urls.supplier ??
      `http://127.0.0.1:${config.SANDBOX_PORT}`,
    // Unused while the session hands out tokens; the client wants one.
    apiKey: config.SUPPLIER_API_KEY ?? config.SANDBOX_API_KEY,
    ratePerSecond: config.SUPPLIER_RATE_PER_SECOND,
    tokens: new SessionTokenSource(temporal.client, temporal.target.queues, {
      account: { id: account.id },
    }),
  });
}

/**
 * A read the account's budget may refuse for now (1600200, or a busy supplier): the workers share
 * that budget, so a read waits its turn a few times before the refusal reaches the operator.
 * Reads only: nothing is done twice by asking again.
 */
export async function patientRead<T>(read: () => Promise<T>, attempts = 6): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (err) {
      const busy =
        err instanceof SupplierError &&
        (err.code === SupplierCode.TooManyRequests || err.code === SupplierCode.SystemBusy);
      if (!busy || attempt >= attempts) throw err;
      await sleep(1_000 * attempt);
    }
  }
}
