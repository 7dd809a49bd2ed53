/**
 * What processes and operators ask a `supplierSession`: the `token` update (the current token,
 * waiting a little for one being obtained, and a refused token reported), the `reauth` update (an
 * operator's getAccessToken at the earliest allowed moment) and the `session` query.
 */
import { condition, setHandler } from '@temporalio/workflow';
import {
  reauthUpdate,
  sessionQuery,
  tokenUpdate,
  type ReauthAnswer,
  type TokenGrant,
  type TokenRequest,
} from './contract.js';
import { iso, now, type SessionState } from './sessionState.js';

/** How long a `token` update waits for a usable token before it fails, saying why. */
const READ_WAIT_MS = 15_000;
/** How long a `reauth` update waits for the getAccessToken it asked for before answering when. */
const REAUTH_ANSWER_WITHIN_MS = 30_000;

// The Temporal UI and CLI may send the update without an argument.
const rejectedOf = (request: TokenRequest | undefined) => request?.rejected;

export function answerSessionRequests(state: SessionState): void {
  setHandler(tokenUpdate, (request) => answerToken(state, request), {
    validator: (request: TokenRequest | undefined) => {
      const rejected: unknown = rejectedOf(request);
      if (rejected !== undefined && typeof rejected !== 'string') {
        throw new Error('rejected: must be the refused access token');
      }
    },
  });
  setHandler(sessionQuery, () => state.view());
  setHandler(reauthUpdate, () => answerReauth(state), {
    validator: () => {
      // A run that started before the release takes it once it renews on the new path.
      if (!state.onBackoffPath && !state.usable()) {
        throw new Error('this session run still waits the old way; ask again in a minute');
      }
    },
  });
}

async function answerToken(
  state: SessionState,
  request: TokenRequest | undefined,
): Promise<TokenGrant> {
  state.updateTaken();
  const deadline = now() + READ_WAIT_MS;
  const rejected = rejectedOf(request);
  if (rejected !== undefined && state.holds(rejected)) {
    state.tokenReportedRefused(rejected);
    const seen = state.renewals;
    await condition(() => state.renewals > seen || state.draining(), READ_WAIT_MS);
  }
  state.noteNoToken();
  // A refused key will not mend within the wait: say so at once.
  const answerable = () =>
    state.usable() || state.keyRefusedSince !== undefined || state.draining();
  if (!(await condition(answerable, Math.max(1, deadline - now()))) || !state.usable()) {
    throw state.noTokenFailure();
  }
  // Due for renewal: give the renewal until the deadline, else answer the still valid token.
  if (!state.fresh()) {
    await condition(() => state.fresh() || state.draining(), Math.max(1, deadline - now()));
  }
  return state.grant();
}

async function answerReauth(state: SessionState): Promise<ReauthAnswer> {
  if (state.usable() && state.keyRefusedSince === undefined) {
    return {
      outcome: 'not-needed',
      message: 'the session holds a usable token and the key is not refused',
      session: state.view(),
    };
  }
  state.reauthRequested();
  const at = Math.max(now(), state.earliest('obtain'));
  const seen = state.obtainTries;
  const answered =
    at - now() <= REAUTH_ANSWER_WITHIN_MS &&
    (await condition(() => state.obtainTries > seen, at - now() + REAUTH_ANSWER_WITHIN_MS));
  const last = state.lastObtain;
  if (!answered || last === undefined) {
    return {
      outcome: 'scheduled',
      triesAt: iso(at),
      message: `getAccessToken is spaced by the supplier; the session sends it at ${iso(at)}`,
      session: state.view(),
    };
  }
  return { ...last, triesAt: iso(state.lastObtainSent), session: state.view() };
}
