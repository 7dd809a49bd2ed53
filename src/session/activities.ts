/**
 * The token calls of the account's session workflow (session/supplierSession.ts), on the orders
 * queue: they carry no token, so they are not supplier-queue activities. Each is one call, tried
 * once; the workflow decides what comes next. A failure says whether trying the same call again
 * may help, with the supplier's code; its message never holds a token or the API key.
 *
 * With a seal (payloads encrypted), what the supplier issues leaves here sealed and the refresh
 * token is opened here: the session's history never holds a token in clear (session/tokenSeal.ts).
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
import { TokenSealError, type TokenSeal } from './tokenSeal.js';

export function supplierSessionActivities(tokens: TokenExchange, seal?: TokenSeal) {
  const sealed = (t: IssuedTokens): IssuedTokens =>
    seal === undefined
      ? t
      : {
          ...t,
          accessToken: seal.seal(t.accessToken),
          refreshToken: seal.seal(t.refreshToken),
          openId: t.openId === undefined ? undefined : seal.seal(t.openId),
        };
  return {
    /** getAccessToken with this process's API key. */
    async obtainSessionToken(): Promise<IssuedTokens> {
      return sealed(await tokenCall('getAccessToken', () => tokens.obtain()));
    },
    /** The refresh token sealed, or in clear as sessions of earlier releases hold it. */
    async refreshSessionToken(refreshToken: string): Promise<IssuedTokens> {
      const opened = () => (seal === undefined ? refreshToken : seal.open(refreshToken));
      return sealed(await tokenCall('refreshAccessToken', () => tokens.refresh(opened())));
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
  // Sealed with a key this process lacks: the session obtains new tokens with the API key.
  if (err instanceof TokenSealError) return false;
  if (err instanceof SupplierError) return err.kind === 'retryable';
  if (err instanceof SupplierTransportError) return true;
  // A request or an answer dropflow cannot use: the same call would meet the same.
  return !(err instanceof SupplierRequestInvalid || err instanceof SupplierResponseInvalid);
}
