/**
 * The token calls of the account's session workflow (session/supplierSession.ts), on the orders
 * queue: they carry no token, so they are not supplier-queue activities. Each is one call, tried
 * once; the workflow decides what comes next. A failure says whether trying the same call again
 * may help, with the supplier's code; its message never holds a token or the API key.
 */
import { ApplicationFailure } from '@temporalio/common';
import { TOKEN_CALL_FAILED, type TokenCallFailure } from './contract.js';
import {
  SupplierError,
  SupplierRequestInvalid,
  SupplierResponseInvalid,
  SupplierTransportError,
} from '../supplier/errors.js';
import type { IssuedTokens, TokenExchange } from '../supplier/tokenExchange.js';

export function supplierSessionActivities(tokens: TokenExchange) {
  return {
    /** getAccessToken with this process's API key. */
    obtainSessionToken(): Promise<IssuedTokens> {
      return tokenCall('getAccessToken', () => tokens.obtain());
    },
    refreshSessionToken(refreshToken: string): Promise<IssuedTokens> {
      return tokenCall('refreshAccessToken', () => tokens.refresh(refreshToken));
    },
  };
}

export type SupplierSessionActivities = ReturnType<typeof supplierSessionActivities>;

async function tokenCall(
  endpoint: string,
  call: () => Promise<IssuedTokens>,
): Promise<IssuedTokens> {
  try {
    return await call();
  } catch (err) {
    const details: TokenCallFailure = {
      endpoint,
      message: err instanceof Error ? err.message : String(err),
      retryable: mayHelpLater(err),
      ...(err instanceof SupplierError && { code: err.code }),
      ...(err instanceof SupplierError &&
        err.retryAfterMs !== undefined && { retryAfterMs: err.retryAfterMs }),
    };
    throw ApplicationFailure.create({
      type: TOKEN_CALL_FAILED,
      message: details.message,
      details: [details],
      nonRetryable: true,
    });
  }
}

function mayHelpLater(err: unknown): boolean {
  if (err instanceof SupplierError) return err.kind === 'retryable';
  if (err instanceof SupplierTransportError) return true;
  // A request or an answer dropflow cannot use: the same call would meet the same.
  return !(err instanceof SupplierRequestInvalid || err instanceof SupplierResponseInvalid);
}
