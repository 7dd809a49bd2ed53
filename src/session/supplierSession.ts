/**
 * `supplierSession` (one per account, id `supplier-session[:<prefix>]`, on the account's orders
 * queue): the account's one access token, shared by every worker and gateway. The supplier allows
 * getAccessToken about once per 5 minutes and refreshAccessToken 5 per minute per account, and a
 * refresh by one process may end the token of the others: so one workflow makes every token call.
 *
 * - Obtains a token when first asked; refreshes it once for all shortly before it expires (a
 *   timer), and when a process reports the current token refused (1600001). Reports of one token
 *   coalesce into one refresh; a report of an older token is answered with the current one.
 * - Obtains again (the API key) only when the refresh fails (1600003 or another answer retrying
 *   cannot mend), the refresh token has expired, or a refreshed token was refused again unchanged.
 * - Spaces its calls as the supplier asks (tokenTiming.ts), waits out 1600200, busy answers and
 *   lost answers with growing pauses, and never fails. Continues as new, carrying its tokens,
 *   before its history gets heavy.
 * - Since `session-backoff-2026-11`: a refused refresh (1600200, busy, lost) waits growing, jittered
 *   pauses past the supplier's one-minute window, and after REFRESH_TRIES_BEFORE_OBTAIN refusals in
 *   a row the session obtains with the API key (still no more often than getAccessToken's spacing).
 *   A key the supplier refuses (1601000) is recorded (`keyRefusedSince`) and tried again on its
 *   own every KEY_REFUSED_PAUSE_MS or so, or at the earliest allowed moment when an operator asks
 *   (`reauth` update, `dropflow account reauth`). `token` updates that find no token fail saying
 *   why (`NoToken` details), at once while the key is refused.
 *
 * Processes read the token with the `token` update (session/sessionTokens.ts): an update can wait
 * for a token that is being obtained and can record a refusal, which a query can do neither of.
 * Tokens travel only in payloads, which the data converter encrypts when a key is configured; the
 * `session` query and the log show times and codes, never a token.
 *
 * The run's state is one SessionState (sessionState.ts); what processes ask is answered in
 * sessionRequests.ts, and the token calls are sent in sessionRenewal.ts.
 */
import { condition, continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { SupplierSessionActivities } from './activities.js';
import type { SupplierSessionInput } from './contract.js';
import { now, SessionState } from './sessionState.js';
import { answerSessionRequests } from './sessionRequests.js';
import { renewTheOldWay, renewWithBackoff } from './sessionRenewal.js';
import { accountPriority } from '../durable/account.js';

export async function supplierSession(input: SupplierSessionInput = {}): Promise<void> {
  const calls = proxyActivities<SupplierSessionActivities>({
    taskQueue: workflowInfo().taskQueue,
    startToCloseTimeout: '1 minute',
    // The workflow decides what follows a failure: spacing, pauses, refresh or obtain.
    retry: { maximumAttempts: 1 },
    // The worker calls with this account's API key.
    priority: accountPriority(),
  });
  const state = new SessionState(input);
  answerSessionRequests(state);

  for (;;) {
    if (state.renewalNeeded()) {
      if (!state.onNewPath()) {
        await renewTheOldWay(state, calls);
        continue;
      }
      if ((await renewWithBackoff(state, calls)) === 'renewed') continue;
      return continueAsNew<typeof supplierSession>(state.carried());
    }
    if (state.timeToContinue()) {
      return continueAsNew<typeof supplierSession>(state.carried());
    }
    await condition(
      () => state.renewalNeeded() || state.timeToContinue(),
      Math.max(1, state.renewsAt! - now()),
    );
  }
}
