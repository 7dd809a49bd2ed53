/**
 * `awaitAccessToken`, on the orders queue (it sends no supplier request of its own): an order
 * whose supplier call found no access token waits here for the account's token instead of
 * sleeping a growing pause. It asks the process's token source — the account's session
 * (session/sessionTokens.ts) in workers — again and again, and answers as soon as a token
 * exists, or after a long-poll bound with why there is none (the same details a supplier call
 * without a token fails with), so the workflow decides what comes next.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { SupplierFailureDetails } from '../supplier/failureDetails.js';
import type { TokenSource } from '../supplier/tokenSource.js';
import { toApplicationFailure } from '../supplier/supplierCall.js';

export interface TokenWaitRequest {
  /** Answer early when the supplier refuses the account's key (default: wait the whole bound). */
  untilKeyRefused?: boolean;
}

export type TokenWaitAnswer =
  | { token: true }
  | {
      token: false;
      /** Why there is none, as a call without a token reports it. */
      failure: SupplierFailureDetails;
      /** How long an order may wait without a token before a person is asked (worker setting). */
      attentionAfterMs: number;
    };

export interface TokenWaitOptions {
  /** NO_TOKEN_ATTENTION_MINUTES, in ms. */
  attentionAfterMs?: number;
  /** How long one wait lasts at most (default a minute). */
  boundMs?: number;
  /** Between two asks of the token source (default 2 s). */
  askEveryMs?: number;
}

export const DEFAULT_NO_TOKEN_ATTENTION_MS = 10 * 60_000;
const DEFAULT_BOUND_MS = 60_000;
const DEFAULT_ASK_EVERY_MS = 2_000;
const ENDPOINT = 'awaitAccessToken';

export function tokenWaitActivities(tokens: TokenSource, options: TokenWaitOptions = {}) {
  const attentionAfterMs = options.attentionAfterMs ?? DEFAULT_NO_TOKEN_ATTENTION_MS;
  const boundMs = options.boundMs ?? DEFAULT_BOUND_MS;
  const askEveryMs = options.askEveryMs ?? DEFAULT_ASK_EVERY_MS;
  return {
    async awaitAccessToken(request: TokenWaitRequest = {}): Promise<TokenWaitAnswer> {
      const ctx = Context.current();
      const until = Date.now() + boundMs;
      for (;;) {
        ctx.heartbeat();
        let failure: SupplierFailureDetails;
        try {
          await tokens.accessToken();
          return { token: true };
        } catch (err) {
          failure = detailsOf(err);
        }
        const keyRefused = request.untilKeyRefused === true && failure.keyRefused === true;
        if (keyRefused || Date.now() + askEveryMs >= until) {
          return { token: false, failure, attentionAfterMs };
        }
        // Ends early when the workflow no longer waits (cancelled with the stop it watched).
        await ctx.sleep(askEveryMs);
      }
    },
  };
}

export type TokenWaitActivities = ReturnType<typeof tokenWaitActivities>;

/** The no-token details a supplier call would fail with (one classification for both). */
function detailsOf(err: unknown): SupplierFailureDetails {
  const f = toApplicationFailure(ENDPOINT, err);
  const details = f instanceof ApplicationFailure ? f.details?.[0] : undefined;
  if (details !== undefined && details !== null) return details as SupplierFailureDetails;
  const message = err instanceof Error ? err.message : String(err);
  return { endpoint: ENDPOINT, message, noToken: true };
}

declare module '../durable/supplierActivities.js' {
  interface OrdersQueueActivities extends TokenWaitActivities {}
}
